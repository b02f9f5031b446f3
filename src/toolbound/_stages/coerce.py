"""Stage 1, coerce: any tool output becomes exactly one envelope.

Accepted inputs, in the order they are recognised:

1. an exception instance: a failure envelope. ``toolbound.ToolError`` keeps its code and message;
   ``TimeoutError`` gives ``timeout``, ``PermissionError`` ``not_authorized``,
   ``FileNotFoundError`` ``not_found``, ``ConnectionError`` a retryable ``tool_failed``, anything
   else ``tool_failed``. The message names the exception type only: exception text can hold
   secrets, paths and stack data, so it is never shown.
2. an envelope-shaped mapping (``{"ok": true, "data": ...}`` / ``{"ok": false, "error": {...}}``):
   validated as an envelope; an unknown error code becomes ``tool_failed``.
3. an MCP ``CallToolResult``-shaped mapping (``content`` blocks, optional ``structuredContent``,
   ``isError``) or the SDK's pydantic object: ``isError`` gives ``tool_failed`` whose message is
   the tool's text (external content: it is scanned and quarantined like data); otherwise ``data``
   is ``structuredContent`` when present, else the single text block's text, else the list of
   content blocks.
4. any other value: ``{"ok": true, "data": value}`` after conversion to JSON.

Values that are not JSON are converted as documented here, each conversion recorded as a note
(path + what happened) in the result's metadata:

| value | becomes |
| --- | --- |
| ``tuple``, ``list`` | list |
| ``set``, ``frozenset`` | list, sorted by canonical JSON of the items (deterministic) |
| ``bytes``, ``bytearray``, ``memoryview`` | the UTF-8 text when it decodes, else ``{"base64": "...", "bytes": N}`` |
| ``float`` NaN / +-inf | ``null`` |
| integers over 256 bits | a ``"0x..."`` hex string (decimal text of such numbers is capped by Python) |
| ``datetime``, ``date``, ``time`` | ISO-8601 string |
| ``Decimal`` | int when integral, else its exact decimal string |
| ``UUID``, ``pathlib.Path``, ``Enum`` | string (an Enum becomes its coerced value) |
| dataclass instance | object of its fields |
| pydantic model | ``model_dump(mode="json")`` |
| mapping keys that are not strings | ``str(key)`` (``None`` -> ``"null"``, booleans -> ``"true"``/``"false"``) |
| strings with lone surrogates | each surrogate replaced by U+FFFD |
| a cycle (a container inside itself) | the string ``"[cycle: <json pointer of the ancestor>]"`` |
| any other object | the whole result becomes ``invalid_output`` naming the type and path |

Limits (``max_depth``, ``max_bytes``, ``max_string_length``) are checked here; a breach gives an
error envelope, never an exception.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as _dt
import decimal
import enum
import math
import pathlib
import re
import uuid
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from toolbound._context import Context
from toolbound._envelope import ErrorInfo, Failure, Success, failure
from toolbound._errors import CATALOGUE, ToolError
from toolbound._jsonutil import canonical_json, escape_token

_SURROGATE = re.compile("[\ud800-\udfff]")
_ENVELOPE_KEYS = frozenset({"ok", "data", "error"})
_MCP_KEYS = frozenset({"content", "structuredContent", "isError", "_meta", "meta", "resultType"})


class _Reject(Exception):
    """Internal: the value cannot become an envelope; carries the failure to return."""

    def __init__(self, env: Failure) -> None:
        self.env = env


def run(ctx: Context) -> None:
    try:
        ctx.envelope = _coerce_top(ctx, ctx.raw)
    except _Reject as r:
        ctx.fail(r.env)
        return
    _check_size(ctx)


def _coerce_top(ctx: Context, raw: Any) -> Success | Failure:
    if isinstance(raw, BaseException):
        return _from_exception(raw)
    if isinstance(raw, BaseModel) and type(raw).__name__ == "CallToolResult":
        raw = raw.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(raw, Mapping):
        keys = set(raw.keys())
        if "ok" in keys and isinstance(raw.get("ok"), bool) and keys <= _ENVELOPE_KEYS:
            return _from_envelope(ctx, raw)
        content = raw.get("content")
        if isinstance(content, list) and keys <= _MCP_KEYS and all(
                isinstance(b, Mapping) and isinstance(b.get("type"), str) for b in content):
            return _from_mcp(ctx, raw)
    return Success.model_construct(ok=True, data=_to_json(ctx, raw))


def _from_exception(exc: BaseException) -> Failure:
    if isinstance(exc, ToolError):
        return Failure(error=ErrorInfo(code=exc.code, message=exc.message,  # type: ignore[arg-type]
                                       retryable=exc.retryable))
    name = type(exc).__name__
    if isinstance(exc, TimeoutError):
        return failure("timeout", f"the tool timed out ({name})")
    if isinstance(exc, PermissionError):
        return failure("not_authorized", f"the tool was refused access ({name})")
    if isinstance(exc, FileNotFoundError):
        return failure("not_found", f"the tool could not find the requested file ({name})")
    if isinstance(exc, ConnectionError):
        return failure("tool_failed", f"the tool could not reach its service ({name})", retryable=True)
    return failure("tool_failed", f"the tool raised {name} while handling the call")


def _from_envelope(ctx: Context, raw: Mapping[str, Any]) -> Success | Failure:
    if raw["ok"]:
        if "error" in raw:
            raise _Reject(failure("invalid_output", "the tool returned an envelope with ok=true and an "
                                  "'error' member; a success envelope carries only 'data'"))
        return Success.model_construct(ok=True, data=_to_json(ctx, raw.get("data")))
    err = raw.get("error")
    if not isinstance(err, Mapping):
        raise _Reject(failure("invalid_output", "the tool returned ok=false without an 'error' "
                              "object holding code, message and retryable"))
    code = err.get("code")
    message = err.get("message")
    if not isinstance(message, str) or not message.strip():
        message = None
    else:
        message = _clean_str(ctx, message, "/error/message")
    retryable = err.get("retryable")
    if isinstance(code, str) and code in CATALOGUE:
        env = failure(code, message=message,
                      retryable=retryable if isinstance(retryable, bool) else None)
    else:
        ctx.note("/error/code", "unknown error code replaced by tool_failed")
        env = failure("tool_failed", message=message,
                      retryable=retryable if isinstance(retryable, bool) else None)
    ctx.error_from_tool = message is not None
    return env


def _from_mcp(ctx: Context, raw: Mapping[str, Any]) -> Success | Failure:
    blocks = raw["content"]
    texts = [b.get("text") for b in blocks if isinstance(b, Mapping) and b.get("type") == "text"
             and isinstance(b.get("text"), str)]
    if raw.get("isError") is True:
        message = "\n".join(texts).strip()
        if not message:
            return failure("tool_failed", "the tool reported an error without a message")
        ctx.error_from_tool = True
        return failure("tool_failed", message=_clean_str(ctx, message, "/error/message"))
    structured = raw.get("structuredContent")
    if structured is not None:
        return Success.model_construct(ok=True, data=_to_json(ctx, structured))
    if len(blocks) == 1 and len(texts) == 1:
        return Success.model_construct(ok=True, data=_clean_str(ctx, texts[0], ""))
    return Success.model_construct(ok=True, data=_to_json(ctx, list(blocks)))


def _clean_str(ctx: Context, s: str, path: str) -> str:
    if len(s) > ctx.options.max_string_length:
        raise _Reject(failure(
            "result_too_large",
            f"the string at {path or '/'} has {len(s):,} characters, over the limit of "
            f"{ctx.options.max_string_length:,} (option max_string_length)"))
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        s = _SURROGATE.sub("\ufffd", s)
        ctx.note(path or "/", "lone surrogates replaced by U+FFFD")
    return s


def _to_json(ctx: Context, value: Any) -> Any:
    try:
        return _plain(value, 0, ctx.options.max_depth, ctx.options.max_string_length)
    except _NotPlain:
        return _conv(ctx, value, "", 0, {})


class _NotPlain(Exception):
    """Internal: the value needs the full conversion (a note, a rejection, or a non-JSON type)."""


_NOT_PLAIN = _NotPlain()


def _plain(v: Any, depth: int, max_depth: int, max_len: int) -> Any:
    """A copy of ``v`` when it is already plain JSON that :func:`_conv` would return unchanged and
    without a note (dicts with string keys, lists, strings within the length limit and without
    lone surrogates, finite floats, ints up to 256 bits, booleans, null); else :class:`_NotPlain`.
    No paths are built: most tool output takes this path."""
    t = type(v)
    if t is dict:
        if depth >= max_depth:
            raise _NOT_PLAIN
        out = {}
        for k, x in v.items():
            if type(k) is not str or len(k) > max_len or not (k.isascii() or _utf8_ok(k)):
                raise _NOT_PLAIN
            out[k] = _plain_item(x, depth, max_depth, max_len)
        return out
    if t is list or t is tuple:
        if depth >= max_depth:
            raise _NOT_PLAIN
        return [_plain_item(x, depth, max_depth, max_len) for x in v]
    return _plain_item(v, depth - 1, max_depth, max_len)


def _plain_item(x: Any, depth: int, max_depth: int, max_len: int) -> Any:
    """:func:`_plain` of a member of a container at ``depth`` (scalars without a call deeper)."""
    tx = type(x)
    if tx is str:
        if len(x) > max_len or not (x.isascii() or _utf8_ok(x)):
            raise _NOT_PLAIN
        return x
    if tx is int:
        if x.bit_length() > 256:
            raise _NOT_PLAIN
        return x
    if x is None or tx is bool:
        return x
    if tx is float:
        if not math.isfinite(x):
            raise _NOT_PLAIN
        return x
    if tx is dict or tx is list or tx is tuple:
        return _plain(x, depth + 1, max_depth, max_len)
    raise _NOT_PLAIN


def _utf8_ok(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _conv(ctx: Context, v: Any, path: str, depth: int, active: dict[int, str]) -> Any:
    # Fast paths first: most tool output is plain JSON already.
    if v is None or v is True or v is False:
        return v
    t = type(v)
    if t is str:
        return _clean_str(ctx, v, path)
    if t is int:
        return _int(ctx, v, path)
    if t is float:
        if math.isfinite(v):
            return v
        ctx.note(path or "/", f"non-finite number {v!r} replaced by null")
        return None
    if depth >= ctx.options.max_depth:
        raise _Reject(failure(
            "invalid_output",
            f"the result is nested deeper than {ctx.options.max_depth} levels (at {path or '/'}; "
            "option max_depth)"))
    if isinstance(v, (dict, list, tuple, set, frozenset, Mapping)) or dataclasses.is_dataclass(v) \
            or isinstance(v, BaseModel):
        ident = id(v)
        if ident in active:
            ctx.note(path or "/", "cycle replaced by a marker")
            return f"[cycle: {active[ident] or '/'}]"
        active[ident] = path
        try:
            return _container(ctx, v, path, depth, active)
        finally:
            del active[ident]
    return _scalar(ctx, v, path)


def _container(ctx: Context, v: Any, path: str, depth: int, active: dict[int, str]) -> Any:
    if isinstance(v, Mapping):
        out: dict[str, Any] = {}
        for k, item in v.items():
            key = _key(ctx, k, path)
            if key in out:
                ctx.note(path or "/", "two keys became the same string; the later one was kept")
            out[key] = _conv(ctx, item, path + "/" + escape_token(key), depth + 1, active)
        return out
    if isinstance(v, (list, tuple)):
        return [_conv(ctx, item, f"{path}/{i}", depth + 1, active) for i, item in enumerate(v)]
    if isinstance(v, (set, frozenset)):
        items = [_conv(ctx, item, f"{path}/{i}", depth + 1, active) for i, item in enumerate(v)]
        ctx.note(path or "/", "set converted to a sorted list")
        return sorted(items, key=canonical_json)
    if isinstance(v, BaseModel):
        try:
            dumped = v.model_dump(mode="json")
        except Exception:  # a model whose fields cannot be dumped is not JSON
            raise _Reject(failure("invalid_output", f"the pydantic model {type(v).__name__} at "
                                  f"{path or '/'} could not be converted to JSON")) from None
        return _conv(ctx, dumped, path, depth, {})
    # dataclass instance (classes themselves are rejected by _scalar)
    if isinstance(v, type):
        return _scalar(ctx, v, path)
    fields = {f.name: getattr(v, f.name) for f in dataclasses.fields(v)}
    return _container(ctx, fields, path, depth, active)


def _key(ctx: Context, k: Any, path: str) -> str:
    if isinstance(k, str):
        return _clean_str(ctx, k, path)
    if k is None:
        key = "null"
    elif k is True or k is False:
        key = "true" if k else "false"
    elif isinstance(k, (int, float, decimal.Decimal, uuid.UUID, enum.Enum)):
        key = str(k.value if isinstance(k, enum.Enum) else k)
    else:
        raise _Reject(failure("invalid_output", f"an object key of type {type(k).__name__} at "
                              f"{path or '/'} cannot be a JSON key; use strings"))
    ctx.note(path or "/", f"{type(k).__name__} key converted to a string")
    return key


def _int(ctx: Context, v: int, path: str) -> Any:
    if v.bit_length() <= 256:
        return v
    ctx.note(path or "/", "integer over 256 bits converted to a hex string")
    return hex(v)


def _scalar(ctx: Context, v: Any, path: str) -> Any:
    p = path or "/"
    if isinstance(v, bool):
        return v
    if isinstance(v, enum.Enum):
        ctx.note(p, f"enum {type(v).__name__} converted to its value")
        return _conv(ctx, v.value, path, 0, {})
    if isinstance(v, int):
        return _int(ctx, int(v), path)
    if isinstance(v, float):
        return _conv(ctx, float(v), path, 0, {})
    if isinstance(v, str):
        return _clean_str(ctx, str(v), path)
    if isinstance(v, (bytes, bytearray, memoryview)):
        b = bytes(v)
        try:
            text = b.decode("utf-8")
        except UnicodeDecodeError:
            ctx.note(p, "binary bytes converted to base64")
            return {"base64": base64.b64encode(b).decode("ascii"), "bytes": len(b)}
        ctx.note(p, "bytes decoded as UTF-8 text")
        return _clean_str(ctx, text, path)
    if isinstance(v, (_dt.datetime, _dt.date, _dt.time)):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        if v.is_finite() and v == v.to_integral_value():
            return _int(ctx, int(v), path)
        if not v.is_finite():
            ctx.note(p, "non-finite decimal replaced by null")
            return None
        return str(v)
    if isinstance(v, (uuid.UUID, pathlib.PurePath)):
        return str(v)
    raise _Reject(failure(
        "invalid_output",
        f"the value at {p} is a {type(v).__name__}, which is not JSON; return dicts, lists, "
        "strings, numbers, booleans or null"))


def _check_size(ctx: Context) -> None:
    env = ctx.envelope
    if not isinstance(env, Success):
        return
    limit = ctx.options.max_bytes
    try:
        text = canonical_json(env.data)
    except (ValueError, TypeError):  # pragma: no cover - coerce only produces JSON
        ctx.fail(failure("internal_error", "the coerced result could not be serialized"))
        return
    ctx.meta["payload_chars"] = len(text)
    if len(text) > limit or len(text.encode("utf-8")) > limit:
        ctx.fail(failure(
            "result_too_large",
            f"the result is {len(text.encode('utf-8')):,} bytes as JSON, over the limit of "
            f"{limit:,} (option max_bytes)"))
        return
    ctx.meta["canonical"] = text
    ctx.canonical_data = env.data

