"""``validate_args()``: the input boundary, in two layers.

The model sends an argument object that *claims* to match the tool's input schema.

1. **Structure** (jsonschema, Draft 2020-12 or Draft 7 when the schema says so, formats enforced):
   every failing path is reported as what was expected, what kind of value came and an example,
   in one ``invalid_arguments`` message the model can act on, e.g. ``2 problems: missing required
   field 'path' at /; invalid date at /due (got a string not in date format); expected ISO-8601
   like 2026-05-18``.
2. **Meaning and authorization** (code): checks (:mod:`toolbound.checks`, or any callable
   ``(args, context) -> None | Failure | str``) run in order on the structurally valid arguments;
   the first failure is returned.

Bad arguments never raise: the result is the validated ``dict`` or a :class:`toolbound.Failure`.
Only misuse by the calling code raises (an invalid schema: :class:`toolbound.InvalidSchemaError`;
a check that is not callable: ``TypeError``).

What the raw arguments may be, and how they are read:

- a ``dict`` (from the host's own JSON parsing): its values must be JSON (``str``, ``int``,
  finite ``float``, ``bool``, ``None``, ``list``/``tuple``, ``dict`` with string keys); the
  returned ``dict`` is a fresh copy;
- a JSON text (``str``, or UTF-8 ``bytes``/``bytearray``): parsed strictly (no ``NaN``, no
  duplicate keys, no invalid UTF-8);
- ``None``, an empty or blank text: no arguments, read as ``{}`` (MCP allows omitting them);
- anything else: ``invalid_arguments``.

Nesting deeper than 64 levels and strings with lone surrogates are refused.
"""

from __future__ import annotations

import inspect
import json
import logging
import math
from collections.abc import Awaitable, Generator, Iterable, Sequence
from typing import Any

from toolbound._envelope import Failure, failure
from toolbound._errors import ToolError
from toolbound._schemacheck import InvalidSchemaError, compile_schema, json_type, problems, safe_excerpt

log = logging.getLogger("toolbound")

MAX_DEPTH = 64
SHOWN_PROBLEMS = 10
_COLLECTED_PROBLEMS = 100


class _Bad(Exception):
    """Internal: the raw arguments cannot be read; carries the failure to return."""

    def __init__(self, env: Failure) -> None:
        self.env = env


class _NoAwait(Exception):
    """Internal: thrown into the check runner when an async check is used on the sync path."""


def _bad(detail: str) -> _Bad:
    return _Bad(failure("invalid_arguments", detail))


# --- reading the raw arguments --------------------------------------------------------------------

def _no_constants(name: str) -> Any:
    raise _bad(f"the arguments contain {name}, which is not a JSON number; send a number or null")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _bad(f"the arguments name the field {safe_excerpt(k, 40)!r} twice in one object; "
                       "send each field once")
        out[k] = v
    return out


def _parse(raw: Any) -> Any:
    if raw is None:
        return {}
    if isinstance(raw, (bytes, bytearray, memoryview)):
        try:
            raw = bytes(raw).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _bad(f"the arguments are not valid UTF-8 text (bad byte at position {exc.start}); "
                       "send a JSON object in UTF-8") from None
    if isinstance(raw, str):
        text = raw.lstrip("\ufeff")
        if not text.strip():
            return {}
        try:
            return json.loads(text, object_pairs_hook=_pairs, parse_constant=_no_constants)
        except json.JSONDecodeError as exc:
            raise _bad(f"the arguments are not valid JSON: {exc.msg} at line {exc.lineno}, column "
                       f"{exc.colno}; send one JSON object like {{\"path\": \"notes.txt\"}}") from None
        except RecursionError:
            raise _bad(f"the arguments are nested more than {MAX_DEPTH} levels deep") from None
        except ValueError:  # e.g. an integer literal over Python's digit limit
            raise _bad("the arguments contain a number too large to read; send a smaller number "
                       "or a string") from None
    return raw


def _plain(value: Any, path: str, depth: int) -> Any:
    """A fresh copy of ``value`` made of plain JSON types, or raise :class:`_Bad`."""
    if value is None or value is True or value is False:
        return value
    if isinstance(value, str):
        s = str.__str__(value)
        if any("\ud800" <= c <= "\udfff" for c in s):
            raise _bad(f"the string at {path or '/'} contains invalid Unicode (a lone surrogate)")
        return s
    if isinstance(value, int):
        return int.__index__(value)
    if isinstance(value, float):
        f = float.__float__(value)
        if not math.isfinite(f):
            raise _bad(f"the number at {path or '/'} is not finite; send a finite number or null")
        return f
    if depth >= MAX_DEPTH:
        raise _bad(f"the arguments are nested more than {MAX_DEPTH} levels deep (at {path or '/'})")
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise _bad(f"the object at {path or '/'} has a {type(k).__name__} key; JSON object "
                           "keys are strings")
            key = _plain(k, path, depth)
            out[key] = _plain(v, path + "/" + key.replace("~", "~0").replace("/", "~1"), depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(v, f"{path}/{i}", depth + 1) for i, v in enumerate(value)]
    if not path:
        raise _bad(f"the arguments must be a JSON object like {{\"path\": \"notes.txt\"}} (got a "
                   f"value of type {type(value).__name__})")
    raise _bad(f"the value at {path} is of type {type(value).__name__}, which is not JSON; send "
               "strings, numbers, booleans, null, arrays and objects")


def read_arguments(raw: Any) -> dict[str, Any] | Failure:
    """Layer 0: the raw arguments as a fresh ``dict`` of plain JSON values, or a failure."""
    try:
        value = _plain(_parse(raw), "", 0)
    except _Bad as bad:
        return bad.env
    except RecursionError:  # a cyclic or absurdly deep container from the host
        return failure("invalid_arguments", f"the arguments are nested more than {MAX_DEPTH} "
                       "levels deep")
    if not isinstance(value, dict):
        return failure("invalid_arguments", f"the arguments must be a JSON object like "
                       f"{{\"path\": \"notes.txt\"}} (got {json_type(value)})")
    return value


# --- layer 1: structure ---------------------------------------------------------------------------

def structure_failure(validator: Any, args: dict[str, Any]) -> Failure | None:
    """Layer 1: every failing path of ``args`` against the compiled schema, in one message."""
    found = problems(validator, args, limit=_COLLECTED_PROBLEMS)
    if not found:
        return None
    n = len(found)
    count = f"{n}{'+' if n >= _COLLECTED_PROBLEMS else ''} problem{'s' if n != 1 else ''}"
    shown = "; ".join(p.sentence() for p in found[:SHOWN_PROBLEMS])
    if n > SHOWN_PROBLEMS:
        shown += f"; and {n - SHOWN_PROBLEMS}{'+' if n >= _COLLECTED_PROBLEMS else ''} more"
    return failure("invalid_arguments", f"{count}: {shown}")


# --- layer 2: checks ------------------------------------------------------------------------------

def normalize_checks(checks: Any) -> tuple[Any, ...]:
    """The checks as a tuple of callables; a single callable is accepted too (misuse raises)."""
    if checks is None:
        return ()
    if callable(checks):
        return (checks,)
    if isinstance(checks, (str, bytes)) or not isinstance(checks, Iterable):
        raise TypeError("checks must be a sequence of callables (args, context) -> None | Failure | str")
    out = tuple(checks)
    for c in out:
        if not callable(c):
            raise TypeError(f"each check must be a callable (args, context) -> None | Failure | str, "
                            f"not {type(c).__name__}")
    return out


def _check_name(check: Any) -> str:
    return getattr(check, "__name__", None) or type(check).__name__


def _interpret(check: Any, outcome: Any) -> Failure | None:
    if outcome is None or outcome is True:
        return None
    if isinstance(outcome, Failure):
        return outcome
    if isinstance(outcome, ToolError):
        return failure(outcome.code, message=outcome.message, retryable=outcome.retryable)
    if isinstance(outcome, str):
        return failure("invalid_arguments", outcome.strip() or None)
    if outcome is False:
        return failure("invalid_arguments", f"the arguments failed the check {_check_name(check)}")
    log.warning("toolbound: check %s returned an unsupported %s", _check_name(check),
                type(outcome).__name__)
    return failure("internal_error", f"the argument check {_check_name(check)} returned an "
                   f"unsupported value ({type(outcome).__name__})")


def _raised(check: Any, exc: BaseException) -> Failure:
    if isinstance(exc, ToolError):
        return failure(exc.code, message=exc.message, retryable=exc.retryable)
    if isinstance(exc, PermissionError):
        return failure("not_authorized")
    log.warning("toolbound: argument check %s raised", _check_name(check), exc_info=exc)
    return failure("internal_error", f"the argument check {_check_name(check)} failed "
                   f"({type(exc).__name__})")


def run_checks(checks: Sequence[Any], args: dict[str, Any], context: Any
               ) -> Generator[Awaitable[Any], Any, Failure | None]:
    """Layer 2 as a generator: yields each awaitable a check returns (the async driver awaits it
    and sends the outcome back; the sync driver throws :class:`_NoAwait`), returns the first failure."""
    for check in checks:
        try:
            outcome = check(args, context)
        except Exception as exc:
            return _raised(check, exc)
        if inspect.isawaitable(outcome):
            try:
                outcome = yield outcome
            except _NoAwait:
                return failure("internal_error", f"the argument check {_check_name(check)} is async; "
                               "it can only run in an async tool")
            except Exception as exc:
                return _raised(check, exc)
        verdict = _interpret(check, outcome)
        if verdict is not None:
            return verdict
    return None


def decide(validator: Any, checks: Sequence[Any], raw_args: Any, context: Any
           ) -> Generator[Awaitable[Any], Any, dict[str, Any] | Failure]:
    """The whole input decision (read, structure, checks) as a generator; see :func:`drive_sync`."""
    args = read_arguments(raw_args)
    if isinstance(args, Failure):
        return args
    try:
        bad = structure_failure(validator, args)
    except Exception as exc:  # e.g. an unresolvable $ref: the schema's fault, reported fail-closed
        log.warning("toolbound: validating arguments against the input schema failed", exc_info=True)
        return failure("internal_error", f"the tool's input schema could not be applied "
                       f"({type(exc).__name__}); the call was refused")
    if bad is not None:
        return bad
    verdict = yield from run_checks(checks, args, context)
    return verdict if verdict is not None else args


def drive_sync(gen: Generator[Awaitable[Any], Any, Any]) -> Any:
    """Run a decision generator without an event loop (async checks get ``internal_error``).
    :class:`toolbound._tool` has its own two drivers around the same generator."""
    try:
        pending = next(gen)
        while True:
            close = getattr(pending, "close", None)
            if callable(close):
                close()  # never awaited on purpose; closing avoids a "never awaited" warning
            pending = gen.throw(_NoAwait())
    except StopIteration as stop:
        return stop.value


def validate_args(raw_args: Any, schema: dict[str, Any] | bool, *, checks: Iterable[Any] = (),
                  context: Any = None) -> dict[str, Any] | Failure:
    """Validate a tool call's arguments at the boundary: structure first, then meaning.

    Args:
        raw_args: What the model sent: a dict, a JSON text (str or bytes), None... anything.
        schema: The tool's input JSON Schema (Draft 2020-12, or Draft 7 when ``$schema`` says so).
        checks: Layer-2 checks, run in order on the structurally valid arguments (see
            :mod:`toolbound.checks`).
        context: Passed to every check as its second argument (e.g. the calling user).

    Returns:
        The validated arguments (a fresh ``dict``), or a :class:`toolbound.Failure` whose message
        says what to fix (``invalid_arguments``, ``path_escapes_workspace``, ``not_authorized``...).

    Raises:
        InvalidSchemaError: ``schema`` is not a valid JSON Schema (misuse by the calling code).
        TypeError: ``checks`` is not a sequence of callables.
    """
    validator = compile_input_schema(schema)
    out: dict[str, Any] | Failure = drive_sync(decide(validator, normalize_checks(checks), raw_args, context))
    return out


def compile_input_schema(schema: Any) -> Any:
    """Check and compile a tool's input schema once; it must describe an object."""
    if not isinstance(schema, (dict, bool)):
        raise InvalidSchemaError(f"an input schema must be a JSON Schema object, not "
                                 f"{type(schema).__name__}")
    validator = compile_schema(schema)
    if isinstance(schema, dict):
        t = schema.get("type")
        if t is not None and t != "object" and not (isinstance(t, list) and "object" in t):
            raise InvalidSchemaError("a tool's input schema must describe an object "
                                     "(\"type\": \"object\"); tool arguments are always a JSON object")
    return validator
