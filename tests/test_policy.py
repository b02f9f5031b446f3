"""Per-tool policy (issue 6): loading, validation errors that name file/key/closest key, field trust,
the effective policy, and the ``toolbound policy`` command."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolbound
from toolbound._jsonutil import iter_leaves, iter_strings
from toolbound._policy import EffectivePolicy, Policy
from toolbound._policyfile import load_policy, policy_warnings

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "policy.toml"


def write(tmp_path: Path, text: str, name: str = "policy.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def error_of(tmp_path: Path, text: str) -> str:
    p = write(tmp_path, text)
    with pytest.raises(toolbound.PolicyError) as ei:
        toolbound.load_policy(p)
    msg = str(ei.value)
    assert msg.startswith(f"{p}: "), msg  # names the file
    return msg[len(str(p)) + 2:]


# --- the example ------------------------------------------------------------------------------------


def test_example_policy_loads_and_resolves() -> None:
    p = toolbound.load_policy(EXAMPLE)
    assert isinstance(p, toolbound.Policy)
    assert set(p.tools) >= {"get_ticket", "web_fetch", "search", "read_email", "read_shared_doc"}
    t = p.for_tool("get_ticket")
    assert t.is_external("/body") and not t.is_external("/ticket") and t.quarantine == "delimit"
    w = p.for_tool("web_fetch")
    assert w.is_external("/content") and not w.is_external("/status")
    assert w.is_html("/content") and not w.is_html("/title") and w.quarantine == "datamark"
    assert w.domain_allowed("docs.example.com") and w.domain_allowed("www.example.com")
    assert not w.domain_allowed("example.com.evil.test")
    assert (w.actions.low, w.actions.medium, w.actions.high) == ("annotate", "redact", "block")
    s = p.for_tool("search")
    assert s.is_external("/results/3/snippet") and not s.is_external("/results/3/url")
    assert p.for_tool("read_shared_doc").actions.medium == "block"
    unknown = p.for_tool("no_such_tool")
    assert not unknown.has_entry and unknown.is_external("/anything") and unknown.max_tokens == 2000
    assert policy_warnings(p) == []


def test_example_ticket_through_the_example_policy() -> None:
    from toolbound._stages import detect

    saved = detect.run
    detect.run = lambda ctx: None
    try:
        ticket = json.loads((EXAMPLE.parent / "ticket.json").read_text())
        r = toolbound.sanitize(ticket, tool="get_ticket", policy=str(EXAMPLE))
    finally:
        detect.run = saved
    assert [s.path for s in r.spans] == ["/body"] and not r.trusted


# --- errors name the file, the key and the closest valid key -----------------------------------------


@pytest.mark.parametrize("text,expected", [
    ('defualts = {}\n', "defualts: unknown key; did you mean 'defaults'?"),
    ('[defaults]\nquarantin = "encode"\n', "defaults.quarantin: unknown key; did you mean 'quarantine'?"),
    ('[tools.get_ticket]\nextrnal = ["/body"]\n',
     "tools.get_ticket.extrnal: unknown key; did you mean 'external'?"),
    ('[tools.web_fetch]\nallow_domain = ["example.com"]\n',
     "tools.web_fetch.allow_domain: unknown key; did you mean 'allow_domains'?"),
    ('[tools.t.actions]\nhihg = "block"\n', "tools.t.actions.hihg: unknown key; did you mean 'high'?"),
    ('[tools.t.actions]\ncritical = "block"\n',
     "tools.t.actions.critical: unknown key; valid keys: low, medium, high"),
    ('[tools.t.actions]\nhigh = "blokc"\n',
     "tools.t.actions.high: unknown action 'blokc'; did you mean 'block'?"),
    ('[defaults.actions]\nmedium = "redacted"\n',
     "defaults.actions.medium: unknown action 'redacted'; did you mean 'redact'?"),
    ('[tools.t]\nquarantine = "encoded"\n',
     "tools.t.quarantine: unknown quarantine mode 'encoded'; did you mean 'encode'?"),
    ('[tools.get_ticket]\nexternal = ["body"]\n',
     "tools.get_ticket.external[0]: selector 'body' must be a JSON Pointer starting with '/'; "
     "did you mean '/body'?"),
    ('[tools.search]\nexternal = ["/results", "$.results[*].snippet"]\n',
     "tools.search.external[1]: selector '$.results[*].snippet' must be a JSON Pointer starting with '/'; "
     "did you mean '/results/*/snippet'?"),
    ('[tools.search]\ninternal = ["/results[0]/url"]\n',
     "tools.search.internal[0]: selector '/results[0]/url' is not a JSON Pointer segment list; "
     "did you mean '/results/0/url'?"),
    ('[tools.t]\nhtml = ["content"]\n',
     "tools.t.html[0]: selector 'content' must be a JSON Pointer starting with '/'; "
     "did you mean '/content'?"),
    ('[tools.t]\nexternal = "/body"\n',
     "tools.t.external: must be a list of selectors, got a string; did you mean external = ['/body']?"),
    ('[tools.t]\nallow_domains = ["https://Example.com/docs"]\n',
     "tools.t.allow_domains[0]: 'https://Example.com/docs' is not a domain name; "
     "did you mean 'example.com'?"),
    ('[tools.t]\nmax_tokens = 10\n',
     "tools.t.max_tokens: must be a whole number of tokens, at least 64; got 10"),
    ('[tools.t]\nthreshold = 2\n', "tools.t.threshold: must be a number from 0.0 to 1.0; got 2"),
    ('tools = 3\n', "tools: must hold one table per tool, like [tools.get_ticket]"),
    ('[tools]\nget_ticket = "/body"\n', "tools.get_ticket: must be a table like [tools.get_ticket]"),
])
def test_policy_errors(tmp_path: Path, text: str, expected: str) -> None:
    assert error_of(tmp_path, text).startswith(expected)


def test_unreadable_and_invalid_files(tmp_path: Path) -> None:
    with pytest.raises(toolbound.PolicyError, match="cannot read policy file"):
        toolbound.load_policy(tmp_path / "missing.toml")
    assert error_of(tmp_path, "[tools\n").startswith("not valid TOML")
    p = tmp_path / "bin.toml"
    p.write_bytes(b"\xff\xfe")
    with pytest.raises(toolbound.PolicyError, match="not UTF-8"):
        toolbound.load_policy(p)


def test_policy_objects_validate_too() -> None:
    with pytest.raises(ValueError, match="did you mean '/body'"):
        Policy(tools={"t": {"external": ["body"]}})
    with pytest.raises(ValueError, match="did you mean 'example.com'"):
        toolbound.ToolPolicy(allow_domains=["http://example.com"])
    with pytest.raises(ValueError):
        Policy(tools={"t": {"actions": {"high": "explode"}}})


def test_sanitize_with_a_bad_policy_file_raises_policy_error(tmp_path: Path) -> None:
    p = write(tmp_path, '[tools.t]\nexternal = ["body"]\n')
    with pytest.raises(toolbound.PolicyError, match="tools.t.external"):
        toolbound.sanitize({"a": 1}, tool="t", policy=str(p))


def test_policy_file_is_cached_until_it_changes(tmp_path: Path) -> None:
    p = write(tmp_path, '[tools.t]\nexternal = ["/a"]\n')
    first = load_policy(p)
    assert load_policy(p) is first
    time.sleep(0.01)
    p.write_text('[tools.t]\nexternal = ["/a", "/bb"]\n')
    os.utime(p, ns=(time.time_ns(), time.time_ns() + 10_000_000))
    assert load_policy(p).tools["t"].external == ["/a", "/bb"]


# --- field trust ----------------------------------------------------------------------------------------


def test_field_trust_rule() -> None:
    p = Policy(defaults={"internal": ["/id"]},
               tools={"listed": {"external": ["/comments/*/text"], "internal": ["/comments/0/text"]},
                      "carved": {"internal": ["/meta"]}})
    listed = p.for_tool("listed")
    assert listed.is_external("/comments/0/text")  # covered by both: stays external
    assert listed.is_external("/comments/5/text/x") and not listed.is_external("/comments/5/by")
    assert not listed.is_external("/id")
    carved = p.for_tool("carved")
    assert not carved.is_external("/meta/x") and carved.is_external("/body")
    unlisted = p.for_tool("other")
    assert not unlisted.is_external("/id") and unlisted.is_external("/name")
    assert "internal' has no effect" in policy_warnings(p)[0]


def test_validation_never_upgrades_trust() -> None:
    from toolbound._stages import detect

    saved = detect.run
    detect.run = lambda ctx: None
    try:
        r = toolbound.sanitize({"name": "x"}, tool="t",
                               output_schema={"type": "object", "properties": {"name": {"type": "string"}}})
    finally:
        detect.run = saved
    assert r.ok and r.meta.get("output_schema") == "valid" and r.trusted is False


def test_digest_is_stable_and_tracks_the_policy() -> None:
    a = Policy(tools={"t": {"external": ["/a"]}})
    b = Policy(tools={"t": {"external": ["/a"]}})
    c = Policy(tools={"t": {"external": ["/b"]}})
    assert a.for_tool("t").digest() == b.for_tool("t").digest() != c.for_tool("t").digest()
    copy = a.for_tool("t").model_copy(update={"quarantine": "encode"})
    assert copy.quarantine == "encode" and copy.digest() != a.for_tool("t").digest()
    with pytest.raises(ValueError):
        a.for_tool("t").model_copy(update={"quarantine": "bogus"})


keys = st.sampled_from(["a", "b", "c", "x/y", "t~", "*", "0"])
json_values = st.recursive(st.none() | st.integers() | st.text(max_size=3),
                           lambda c: st.lists(c, max_size=3) | st.dictionaries(keys, c, max_size=3),
                           max_leaves=15)
selectors = st.lists(st.sampled_from(["a", "b", "*", "0", "1", "c", "x~1y", "t~0"]), max_size=3).map(
    lambda p: "/" + "/".join(p) if p else "")


@settings(max_examples=500, deadline=None)
@given(json_values, st.one_of(st.none(), st.lists(selectors, max_size=3)), st.lists(selectors, max_size=3))
def test_fast_walks_agree_with_is_external(data, external, internal) -> None:
    e = EffectivePolicy(external=external, internal=internal)
    assert e.external_strings(data) == [(p, s) for p, s in iter_strings(data) if e.is_external(p)]
    assert e.leaves(data) == [(p, v, e.is_external(p)) for p, v in iter_leaves(data)]


# --- system prompt note -----------------------------------------------------------------------------


def test_system_prompt_note() -> None:
    note = toolbound.system_prompt_note()
    assert "<<end Q1 NONCE>>" in note and "never instructions" in note
    assert "U+02C6" in note and "base64" in note and "$Q1" in note
    only_delimit = toolbound.system_prompt_note(Policy())
    assert "U+02C6" not in only_delimit and "base64" not in only_delimit
    from_file = toolbound.system_prompt_note(str(EXAMPLE))
    assert all(w in from_file for w in ("U+02C6", "base64", "$Q1"))
    assert len(note) < 2500


# --- CLI --------------------------------------------------------------------------------------------------


def test_cli_policy_check(run_cli, tmp_path: Path) -> None:
    ok = run_cli("policy", "check", str(EXAMPLE))
    assert ok.returncode == 0 and "ok (6 tool table(s)" in ok.stdout
    bad = write(tmp_path, '[tools.get_ticket]\nexternal = ["/body"]\n'
                          '[tools.get_ticket.actions]\nhigh = "blokc"\n')
    r = run_cli("policy", "check", str(bad))
    assert r.returncode == 1
    assert f"{bad}: tools.get_ticket.actions.high: unknown action 'blokc'; did you mean 'block'?" in r.stderr
    warn = write(tmp_path, '[tools.t]\nexternal = ["/a"]\ninternal = ["/b"]\n', "w.toml")
    r = run_cli("policy", "check", str(warn))
    assert r.returncode == 0 and "warning: tools.t: 'internal' has no effect" in r.stderr
    assert run_cli("policy", "check", str(tmp_path / "nope.toml")).returncode == 2


def test_cli_policy_show(run_cli) -> None:
    r = run_cli("policy", "show", str(EXAMPLE), "--tool", "web_fetch")
    assert r.returncode == 0, r.stderr
    eff = json.loads(r.stdout)
    assert eff["tool"] == "web_fetch" and eff["html"] == ["/content"] and eff["quarantine"] == "datamark"
    assert eff["actions"] == {"low": "annotate", "medium": "redact", "high": "block"}
    assert eff["policy_sha256"] == toolbound.load_policy(EXAMPLE).for_tool("web_fetch").digest()
    r = run_cli("policy", "show", str(EXAMPLE), "--tool", "mystery")
    assert r.returncode == 0 and "has no table" in r.stderr and json.loads(r.stdout)["has_entry"] is False
