"""Property: sanitize never raises and always returns a valid envelope, whatever the tool returns."""

import json
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolbound
from toolbound._envelope import parse_envelope

# Arbitrary Unicode, lone surrogates included (category Cs).
text = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=60)
scalars = (st.none() | st.booleans() | st.integers(min_value=-(2 ** 300), max_value=2 ** 300)
           | st.floats(allow_nan=True, allow_infinity=True) | text
           | st.binary(max_size=20) | st.decimals(allow_nan=True, allow_infinity=True))
keys = text | st.integers() | st.none() | st.booleans()
values = st.recursive(
    scalars,
    lambda children: (st.lists(children, max_size=5) | st.tuples(children, children)
                      | st.dictionaries(keys, children, max_size=5)
                      | st.frozensets(st.integers() | text, max_size=4)),
    max_leaves=40,
)


def check(result: toolbound.SanitizedResult) -> None:
    dumped = result.envelope.model_dump(mode="json")
    text_form = json.dumps(dumped, ensure_ascii=False, allow_nan=False)
    text_form.encode("utf-8")  # no lone surrogates survive
    assert parse_envelope(json.loads(text_form)) == parse_envelope(dumped)
    assert isinstance(result.trusted, bool)
    assert isinstance(result.to_model(), str) and result.to_model()
    json.loads(result.to_json())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values)
def test_sanitize_never_raises(value):
    check(toolbound.sanitize(value, tool="t"))


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from(["ok", "data", "error", "content", "isError", "structuredContent"]),
                       values, max_size=4))
def test_envelope_and_mcp_lookalikes(value):
    check(toolbound.sanitize(value))


@settings(max_examples=100, deadline=None)
@given(text, st.sampled_from([ValueError, RuntimeError, TimeoutError, KeyError, OSError]))
def test_exceptions_never_leak(msg, exc_type):
    r = toolbound.sanitize(exc_type(msg))
    check(r)
    assert not r.ok
    if len(msg) > 8:
        assert msg not in r.envelope.error.message


def test_float_specials():
    r = toolbound.sanitize([math.nan, math.inf, -0.0])
    assert r.envelope.data == [None, None, -0.0]
