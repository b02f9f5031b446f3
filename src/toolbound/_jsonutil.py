"""JSON helpers: the canonical serialization, JSON Pointers, and walking string leaves."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any


def canonical_json(value: Any) -> str:
    """The one canonical serialization of a (coerced) JSON value.

    Compact separators, keys in their original order, non-ASCII kept as is. Pages handed out by
    the store are consecutive slices of exactly this string.
    """
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def escape_token(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def unescape_token(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def pointer(parts: tuple[str | int, ...] | list[str | int]) -> str:
    """RFC 6901 JSON Pointer for a path of keys and indexes ("" is the whole document)."""
    return "".join("/" + escape_token(str(p)) for p in parts)


def split_pointer(ptr: str) -> list[str]:
    if ptr == "":
        return []
    if not ptr.startswith("/"):
        raise ValueError(f"JSON Pointer must be empty or start with '/': {ptr!r}")
    return [unescape_token(t) for t in ptr[1:].split("/")]


def iter_strings(value: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """Yield ``(json_pointer, string)`` for every string leaf, in document order (iterative)."""
    stack: list[tuple[str, Any]] = [(prefix, value)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, str):
            yield path, node
        elif isinstance(node, dict):
            items = list(node.items())
            for k, v in reversed(items):
                stack.append((path + "/" + escape_token(k), v))
        elif isinstance(node, list):
            for i in range(len(node) - 1, -1, -1):
                stack.append((f"{path}/{i}", node[i]))


def iter_leaves(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Yield ``(json_pointer, value)`` for every non-container leaf (strings, numbers, booleans, null)."""
    stack: list[tuple[str, Any]] = [(prefix, value)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            for k, v in reversed(list(node.items())):
                stack.append((path + "/" + escape_token(k), v))
        elif isinstance(node, list):
            for i in range(len(node) - 1, -1, -1):
                stack.append((f"{path}/{i}", node[i]))
        else:
            yield path, node


def get_at(value: Any, ptr: str) -> Any:
    node = value
    for tok in split_pointer(ptr):
        node = node[int(tok)] if isinstance(node, list) else node[tok]
    return node


def replace_strings(value: Any, mapping: dict[str, Any], prefix: str = "") -> Any:
    """A copy of ``value`` where string leaves at the pointers in ``mapping`` are replaced."""
    if not mapping:
        return value
    if isinstance(value, str):
        return mapping.get(prefix, value)
    if isinstance(value, dict):
        return {k: replace_strings(v, mapping, prefix + "/" + escape_token(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [replace_strings(v, mapping, f"{prefix}/{i}") for i, v in enumerate(value)]
    return value
