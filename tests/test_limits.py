import pytest

import toolbound


def nested(depth):
    v: object = "leaf"
    for _ in range(depth):
        v = [v]
    return v


def test_depth_limit_default():
    assert toolbound.sanitize(nested(60)).ok
    r = toolbound.sanitize(nested(70))
    assert r.envelope.error.code == "invalid_output" and "64 levels" in r.envelope.error.message


def test_depth_limit_configurable():
    assert toolbound.sanitize(nested(10), max_depth=10).ok
    assert toolbound.sanitize(nested(11), max_depth=10).envelope.error.code == "invalid_output"


def test_very_deep_nesting_does_not_raise():
    r = toolbound.sanitize(nested(100_000))
    assert r.envelope.error.code == "invalid_output"


def test_string_length_limit():
    assert toolbound.sanitize("x" * 100, max_string_length=100).ok
    r = toolbound.sanitize({"a": "x" * 101}, max_string_length=100)
    assert r.envelope.error.code == "result_too_large"
    assert "/a" in r.envelope.error.message and "max_string_length" in r.envelope.error.message


def test_total_size_limit():
    r = toolbound.sanitize(["abcd"] * 100, max_bytes=200)
    assert r.envelope.error.code == "result_too_large" and "max_bytes" in r.envelope.error.message
    assert toolbound.sanitize(["abcd"] * 10, max_bytes=200).ok


def test_size_counts_utf8_bytes():
    r = toolbound.sanitize("é" * 150, max_bytes=200)
    assert r.envelope.error.code == "result_too_large"


def test_unknown_option_is_misuse():
    with pytest.raises(toolbound.OptionError, match="max_tokens"):
        toolbound.sanitize({}, max_token=5)
    with pytest.raises(TypeError):
        toolbound.sanitize({}, max_depth="deep")


def test_max_depth_option_is_capped_below_the_recursion_limit():
    nested200 = nested(199)
    assert toolbound.sanitize(nested200, max_depth=200).ok
    with pytest.raises(toolbound.OptionError):
        toolbound.sanitize({}, max_depth=501)


def test_quarantine_option_is_validated():
    assert toolbound.sanitize({"a": "x"}, quarantine="encode").ok
    with pytest.raises(toolbound.OptionError):
        toolbound.sanitize({"a": "x"}, quarantine="hide")
