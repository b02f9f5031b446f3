"""JSON Schema checking shared by both boundaries (tool arguments and tool output).

Schemas are checked once (``check_schema``) and their validators cached. Validation problems are
described from the *schema* side (what was expected, what kind of value came, an example), never by
echoing the offending value: tool output and model arguments can be hostile.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import jsonschema
from jsonschema import Draft7Validator, Draft202012Validator
from jsonschema.exceptions import SchemaError, ValidationError

from toolbound._formats import format_checker_for

_FORMAT_EXAMPLES = {
    "date": "ISO-8601 like 2026-05-18",
    "date-time": "ISO-8601 like 2026-05-18T14:30:00Z",
    "time": "ISO-8601 like 14:30:00Z",
    "email": "an address like ana@example.com",
    "uri": "an absolute URI like https://example.com/path",
    "uri-reference": "a URI reference like /docs/intro or https://example.com",
    "uuid": "a UUID like 123e4567-e89b-12d3-a456-426614174000",
    "ipv4": "an IPv4 address like 192.0.2.10",
    "ipv6": "an IPv6 address like 2001:db8::1",
    "hostname": "a host name like api.example.com",
    "duration": "an ISO-8601 duration like P3DT4H",
}

_TYPE_EXAMPLES = {
    "string": '"text"', "integer": "42", "number": "3.5", "boolean": "true", "array": "[...]",
    "object": "{...}", "null": "null",
}

_cache: dict[str, Any] = {}


class InvalidSchemaError(ValueError):
    """The schema itself is invalid (a programming error, raised at definition time)."""


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def compile_schema(schema: dict[str, Any] | bool) -> Any:
    """A cached, format-checking validator for ``schema`` (Draft 2020-12 unless it says Draft 7).

    Raises:
        InvalidSchemaError: the schema is not a valid JSON Schema.
    """
    key = json.dumps(schema, sort_keys=True, default=str)
    v = _cache.get(key)
    if v is not None:
        return v
    cls = jsonschema.validators.validator_for(schema, default=Draft202012Validator) \
        if isinstance(schema, dict) else Draft202012Validator
    if cls not in (Draft202012Validator, Draft7Validator):
        cls = jsonschema.validators.validator_for(schema, default=Draft202012Validator)
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        where = "/" + "/".join(str(p) for p in exc.absolute_path) if exc.absolute_path else "/"
        raise InvalidSchemaError(f"invalid JSON Schema at {where}: {exc.message}") from None
    v = cls(schema, format_checker=format_checker_for(cls))
    if len(_cache) > 256:
        _cache.clear()
    _cache[key] = v
    return v


@dataclass(frozen=True)
class Problem:
    """One validation failure, described without echoing the value."""

    path: str
    expected: str
    got: str
    example: str | None = None

    def sentence(self) -> str:
        s = f"{self.expected} at {self.path or '/'}"
        if self.got:
            s += f" (got {self.got})"
        if self.example:
            s += f"; expected {self.example}"
        return s

    def to_dict(self) -> dict[str, str]:
        d = {"path": self.path or "/", "expected": self.expected, "got": self.got}
        if self.example:
            d["example"] = self.example
        return d


_SAFE_EXCERPT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/ ")


def safe_excerpt(text: str, limit: int = 24, *, extra: str = "") -> str:
    """A short excerpt of untrusted text that is safe to show: at most ``limit`` characters, each
    outside ``[A-Za-z0-9._-/ ]`` (plus ``extra``) replaced by ``?``, with ``...`` when cut."""
    head = "".join(c if c in _SAFE_EXCERPT_CHARS or c in extra else "?" for c in text[:limit])
    return head + ("..." if len(text) > limit else "")


def _search(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is not None
    except (re.error, RecursionError, TypeError):
        return False


def _pointer(parts: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def describe(error: ValidationError) -> Problem:
    """Turn one jsonschema error into a :class:`Problem`."""
    kw = error.validator
    val = error.validator_value
    path = _pointer(error.absolute_path)
    got = json_type(error.instance)
    if kw == "format":
        example = _FORMAT_EXAMPLES.get(str(val), f"a string in {val} format")
        return Problem(path, f"invalid {val}", f"a {got} not in {val} format", example)
    if kw == "type":
        types = val if isinstance(val, list) else [val]
        ex = " or ".join(_TYPE_EXAMPLES.get(t, t) for t in types)
        return Problem(path, f"wrong type: expected {' or '.join(types)}", got, f"a value like {ex}")
    if kw == "required":
        missing = [r for r in val if isinstance(error.instance, dict) and r not in error.instance]
        names = ", ".join(repr(m) for m in missing) or "a required field"
        return Problem(path, f"missing required field {names}", "", None)
    if kw in ("additionalProperties", "unevaluatedProperties"):
        extra: list[str] = []
        if isinstance(error.instance, dict) and isinstance(error.schema, dict):
            allowed = set(error.schema.get("properties", {}))
            patterns = list(error.schema.get("patternProperties", {}))
            extra = sorted(k for k in error.instance if k not in allowed
                           and not any(_search(p, k) for p in patterns))[:5]
        allowed_names = sorted(error.schema.get("properties", {})) if isinstance(error.schema, dict) else []
        hint = f"allowed fields: {', '.join(allowed_names)}" if allowed_names else None
        names = ", ".join(repr(safe_excerpt(e, 40)) for e in extra) or "unknown fields"
        return Problem(path, f"unexpected field {names}", "", hint)
    if kw == "enum":
        opts = ", ".join(json.dumps(o)[:40] for o in list(val)[:8])
        return Problem(path, "value not allowed", got, f"one of {opts}")
    if kw == "const":
        return Problem(path, "value not allowed", got, f"exactly {json.dumps(val)[:60]}")
    if kw in ("minLength", "maxLength"):
        n = len(error.instance) if isinstance(error.instance, str) else 0
        word = "at least" if kw == "minLength" else "at most"
        return Problem(path, f"string length out of range", f"{n} characters", f"{word} {val} characters")
    if kw in ("minItems", "maxItems"):
        n = len(error.instance) if isinstance(error.instance, list) else 0
        word = "at least" if kw == "minItems" else "at most"
        return Problem(path, "wrong number of items", f"{n} items", f"{word} {val} items")
    if kw in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        word = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}[kw]
        return Problem(path, "number out of range", got, f"a number {word} {val}")
    if kw == "pattern":
        return Problem(path, "string does not match the required pattern", got, f"a string matching {val}")
    if kw is None:  # a ``false`` subschema: nothing is allowed here
        return Problem(path, "no value is allowed here", got, "leave this field out")
    if kw in ("minProperties", "maxProperties"):
        n = len(error.instance) if isinstance(error.instance, dict) else 0
        word = "at least" if kw == "minProperties" else "at most"
        return Problem(path, "wrong number of fields", f"{n} fields", f"{word} {val} fields")
    if kw == "uniqueItems":
        return Problem(path, "items must be unique", "an array with repeated items", None)
    if kw == "multipleOf":
        return Problem(path, "number is not a multiple of the required step", got, f"a multiple of {val}")
    if kw in ("dependentRequired", "dependencies") and isinstance(val, dict) \
            and isinstance(error.instance, dict):
        for trigger, needed in val.items():
            if trigger in error.instance and isinstance(needed, list):
                missing = [n for n in needed if n not in error.instance]
                if missing:
                    return Problem(path, f"missing field {', '.join(repr(m) for m in missing)} "
                                   f"(required when {trigger!r} is given)", "", None)
    if kw in ("oneOf", "anyOf"):
        return Problem(path, f"value matches none of the allowed shapes ({kw})", got, None)
    return Problem(path, f"value fails the schema's '{kw}' rule", got, None)


def problems(validator: Any, instance: Any, limit: int = 20) -> list[Problem]:
    """Every failing path (up to ``limit``), deepest-first within each path, in document order."""
    errs = sorted(validator.iter_errors(instance),
                  key=lambda e: (list(map(str, e.absolute_path)), e.validator != "required",
                                 str(e.validator)))
    out: list[Problem] = []
    seen: set[Problem] = set()
    for e in errs:
        # Combinators report their own summary; prefer their most specific sub-error.
        if e.context:
            best = jsonschema.exceptions.best_match(e.context)
            if best is not None:
                e = best
        for p in _split(e):
            if p not in seen:  # "required" gives one error per missing field, each seeing all
                seen.add(p)
                out.append(p)
        if len(out) >= limit:
            break
    return out[:limit]


def _split(error: ValidationError) -> list[Problem]:
    """One problem per missing required field; otherwise :func:`describe`."""
    if error.validator == "required" and isinstance(error.instance, dict) \
            and isinstance(error.validator_value, list):
        path = _pointer(error.absolute_path)
        missing = [r for r in error.validator_value if r not in error.instance]
        if missing:
            return [Problem(path, f"missing required field {m!r}", "", None) for m in missing]
    return [describe(error)]
