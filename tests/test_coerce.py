import dataclasses
import datetime as dt
import decimal
import enum
import math
import pathlib
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

import toolbound
from toolbound._stages import coerce


def data_of(raw, **kw):
    r = toolbound.sanitize(raw, **kw)
    assert r.ok, r.envelope
    return r.envelope.data, r


@pytest.mark.parametrize("value", [None, True, False, 0, -7, 3.25, "", "héllo ✓", [], {}, [1, [2, [3]]],
                                   {"a": {"b": [None, "x"]}}])
def test_plain_json_passes_unchanged(value):
    data, r = data_of(value)
    assert data == value
    assert "notes" not in r.meta


def test_envelope_shaped_success_and_failure():
    data, _ = data_of({"ok": True, "data": {"id": 1}})
    assert data == {"id": 1}
    r = toolbound.sanitize({"ok": False, "error": {"code": "not_found", "message": "no such ticket; list tickets first",
                                                   "retryable": False}})
    assert not r.ok and r.envelope.error.code == "not_found"
    # the message came from the tool: it is external content
    assert not r.trusted and r.spans[0].path == "/error/message"


def test_envelope_unknown_code_becomes_tool_failed():
    r = toolbound.sanitize({"ok": False, "error": {"code": "E_WEIRD", "message": "it broke"}})
    assert r.envelope.error.code == "tool_failed"
    assert any(n["path"] == "/error/code" for n in r.meta["notes"])


@pytest.mark.parametrize("raw", [{"ok": True, "error": {"code": "x"}}, {"ok": False}, {"ok": False, "error": "boom"}])
def test_malformed_envelopes_are_invalid_output(raw):
    r = toolbound.sanitize(raw)
    assert r.envelope.error.code == "invalid_output"


def test_dict_with_ok_and_other_keys_is_plain_data():
    data, _ = data_of({"ok": True, "count": 3})
    assert data == {"ok": True, "count": 3}


def test_mcp_call_tool_result_text():
    data, _ = data_of({"content": [{"type": "text", "text": "hello"}], "isError": False})
    assert data == "hello"


def test_mcp_structured_content_wins():
    data, _ = data_of({"content": [{"type": "text", "text": "{\"a\":1}"}], "structuredContent": {"a": 1}})
    assert data == {"a": 1}


def test_mcp_multiple_blocks_kept_as_list():
    blocks = [{"type": "text", "text": "a"}, {"type": "image", "data": "aGk=", "mimeType": "image/png"}]
    data, _ = data_of({"content": blocks})
    assert data == blocks


def test_mcp_is_error():
    r = toolbound.sanitize({"content": [{"type": "text", "text": "ticket 9 not found"}], "isError": True})
    assert not r.ok and r.envelope.error.code == "tool_failed"
    assert "ticket 9 not found" in r.envelope.error.message
    assert not r.trusted


def test_mcp_is_error_without_text():
    r = toolbound.sanitize({"content": [], "isError": True})
    assert r.envelope.error.code == "tool_failed" and r.trusted


def test_mcp_sdk_object():
    mcp_types = pytest.importorskip("mcp.types")
    res = mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text="hi")], isError=False)
    data, _ = data_of(res)
    assert data == "hi"


@pytest.mark.parametrize("exc,code,retryable", [
    (ValueError("boom"), "tool_failed", False),
    (RuntimeError("secret=hunter2 at /home/me"), "tool_failed", False),
    (TimeoutError(), "timeout", True),
    (PermissionError("nope"), "not_authorized", False),
    (FileNotFoundError("/etc/x"), "not_found", False),
    (ConnectionResetError(), "tool_failed", True),
    (toolbound.ToolError("rate_limited", "slow down; retry in 30 s"), "rate_limited", True),
])
def test_exceptions(exc, code, retryable):
    r = toolbound.sanitize(exc)
    assert not r.ok
    assert r.envelope.error.code == code and r.envelope.error.retryable is retryable
    assert r.trusted  # toolbound wrote the message


def test_exception_message_never_leaks_text_or_trace():
    try:
        raise RuntimeError("password=hunter2 token=abc123")
    except RuntimeError as e:
        r = toolbound.sanitize(e)
    msg = r.envelope.error.message
    assert "hunter2" not in msg and "abc123" not in msg and "Traceback" not in msg
    assert "RuntimeError" in msg and "Next:" in msg


def test_tool_error_keeps_its_message():
    r = toolbound.sanitize(toolbound.ToolError("invalid_arguments", "invalid date; expected ISO-8601 like 2026-05-18"))
    assert r.envelope.error.message == "invalid date; expected ISO-8601 like 2026-05-18"


def test_tool_error_rejects_unknown_code():
    with pytest.raises(ValueError):
        toolbound.ToolError("bogus")


class Color(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Point:
    x: int
    y: tuple


class Model(BaseModel):
    a: int
    when: dt.date


def test_non_json_values_have_defined_treatment():
    raw = {
        "set": {3, 1, 2},
        "tuple": (1, "a"),
        "bytes": b"caf\xc3\xa9",
        "binary": b"\x00\xff",
        "nan": math.nan,
        "inf": -math.inf,
        "dt": dt.datetime(2026, 5, 18, 14, 30, tzinfo=dt.timezone.utc),
        "date": dt.date(2026, 5, 18),
        "dec": decimal.Decimal("1.10"),
        "decint": decimal.Decimal("5"),
        "uuid": uuid.UUID(int=1),
        "path": pathlib.PurePosixPath("/a/b"),
        "enum": Color.RED,
        "dc": Point(1, (2, 3)),
        "model": Model(a=1, when=dt.date(2026, 1, 2)),
        7: "int key",
        None: "none key",
        "big": 2 ** 300,
    }
    data, r = data_of(raw)
    assert data["set"] == [1, 2, 3]
    assert data["tuple"] == [1, "a"]
    assert data["bytes"] == "café"
    assert data["binary"] == {"base64": "AP8=", "bytes": 2}
    assert data["nan"] is None and data["inf"] is None
    assert data["dt"] == "2026-05-18T14:30:00+00:00"
    assert data["date"] == "2026-05-18"
    assert data["dec"] == "1.10" and data["decint"] == 5
    assert data["uuid"] == "00000000-0000-0000-0000-000000000001"
    assert data["path"] == "/a/b"
    assert data["enum"] == "red"
    assert data["dc"] == {"x": 1, "y": [2, 3]}
    assert data["model"] == {"a": 1, "when": "2026-01-02"}
    assert data["7"] == "int key" and data["null"] == "none key"
    assert data["big"] == hex(2 ** 300)
    paths = {n["path"] for n in r.meta["notes"]}
    assert {"/set", "/binary", "/nan", "/big"} <= paths


def test_cycles_become_markers():
    a: list = [1]
    a.append(a)
    d: dict = {"x": {}}
    d["x"]["back"] = d
    data, r = data_of({"list": a, "dict": d})
    assert data["list"] == [1, "[cycle: /list]"]
    assert data["dict"] == {"x": {"back": "[cycle: /dict]"}}
    assert any("cycle" in n["note"] for n in r.meta["notes"])


def test_shared_non_cyclic_references_are_fine():
    shared = {"k": 1}
    data, r = data_of([shared, shared])
    assert data == [{"k": 1}, {"k": 1}]


def test_unknown_object_is_invalid_output():
    class Thing:
        pass

    r = toolbound.sanitize({"x": [Thing()]})
    assert r.envelope.error.code == "invalid_output"
    assert "/x/0" in r.envelope.error.message and "Thing" in r.envelope.error.message


def test_lone_surrogates_replaced():
    data, r = data_of({"s": "a\ud800b", "k\udfff": 1})
    assert data["s"] == "a\ufffdb"
    assert "k\ufffd" in data


# --- the plain-JSON fast path gives exactly what the full conversion gives ------------------------

_anything = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2 ** 300), max_value=2 ** 300)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=12)
    | st.binary(max_size=4) | st.sampled_from([decimal.Decimal("1.5"), uuid.UUID(int=7)]),
    lambda kids: (st.lists(kids, max_size=4) | st.tuples(kids, kids) | st.frozensets(st.integers(), max_size=3)
                  | st.dictionaries(st.text(max_size=5) | st.integers() | st.none(), kids, max_size=4)),
    max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(_anything, st.integers(min_value=1, max_value=6), st.integers(min_value=1, max_value=20))
def test_plain_fast_path_matches_full_conversion(value, max_depth, max_len):
    r = toolbound.sanitize(None, max_depth=max_depth, max_string_length=max_len)
    ctx = r._ctx
    try:
        fast = coerce._plain(value, 0, max_depth, max_len)
    except coerce._NotPlain:
        return
    ctx.notes = []
    assert coerce._conv(ctx, value, "", 0, {}) == fast and ctx.notes == []
    assert fast is not value or not isinstance(value, (dict, list))  # a copy, never the caller's object


def test_plain_fast_path_leaves_notes_and_limits_to_the_full_conversion():
    for raw in ({"a": float("nan")}, {"a": 2 ** 300}, {1: "x"}, {"a": "\ud800"}, {"\udc00": 1},
                {"a": {1, 2}}, {"a": b"x"}):
        _, r = data_of(raw)
        assert r.meta.get("notes"), raw
    r = toolbound.sanitize({"a": [[["deep"]]]}, max_depth=2)
    assert not r.ok and r.envelope.error.code == "invalid_output"
    r = toolbound.sanitize({"a": "x" * 50}, max_string_length=10)
    assert not r.ok and r.envelope.error.code == "result_too_large"
