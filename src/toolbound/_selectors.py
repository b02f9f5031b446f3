"""Field selectors: JSON Pointers where a ``*`` segment matches any key or index.

A selector covers the node it names and everything beneath it: ``/comments`` covers
``/comments/3/text``; ``/results/*/snippet`` covers ``/results/0/snippet``. The empty selector ``""``
(or ``"/"`` read as the root) covers the whole result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolbound._jsonutil import escape_token, split_pointer


class SelectorError(ValueError):
    """A selector is not a valid JSON Pointer."""


_JSONPATH_INDEX = re.compile(r"\[\s*(\*|\d+|'[^']*'|\"[^\"]*\")\s*\]")


def suggest_selector(text: str) -> str | None:
    """The JSON Pointer a malformed selector most likely meant, or None.

    ``body`` -> ``/body``; ``$.results[*].snippet`` -> ``/results/*/snippet``;
    ``results.0.snippet`` -> ``/results/0/snippet``.
    """
    if not isinstance(text, str):
        return None
    t = text.strip()
    t = t.removeprefix("$")
    sep = "/" if "/" in t else "."
    t = _JSONPATH_INDEX.sub(lambda m: sep + m.group(1).strip("'\""), t)
    if t.startswith("/"):
        parts = [p for p in t.split("/") if p]
    else:
        sep = "." if "." in t and "/" not in t else "/"
        parts = [p for p in t.split(sep) if p]
    if not parts:
        return None
    out = "/" + "/".join(parts)
    out = re.sub(r"~(?![01])", "~0", out)
    return out if out != text else None


@dataclass(frozen=True)
class Selector:
    text: str
    parts: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> Selector:
        if not isinstance(text, str):
            raise SelectorError(f"selector must be a string, got {type(text).__name__}")
        if text in ("", "/"):
            return cls(text, ())
        if not text.startswith("/"):
            hint = suggest_selector(text)
            raise SelectorError(
                f"selector {text!r} must be a JSON Pointer starting with '/'"
                + (f"; did you mean {hint!r}?" if hint else ", e.g. '/body' or '/comments/*/text'"))
        if re.search(r"~(?![01])", text):
            raise SelectorError(f"selector {text!r} has a bad '~' escape; use ~0 for '~' and ~1 for '/'")
        if re.search(r"\[\s*(?:\*|\d+)\s*\]", text) or text.endswith("/"):
            hint = suggest_selector(text)
            if hint and hint != text:
                raise SelectorError(f"selector {text!r} is not a JSON Pointer segment list; "
                                    f"did you mean {hint!r}?")
        return cls(text, tuple(split_pointer(text)))

    def covers(self, path_parts: list[str]) -> bool:
        """True when this selector names ``path_parts`` or one of its ancestors."""
        if len(self.parts) > len(path_parts):
            return False
        return all(s == "*" or s == p for s, p in zip(self.parts, path_parts))


def covers_any(selectors: tuple[Selector, ...], path: str) -> bool:
    if not selectors:
        return False
    parts = split_pointer(path)
    return any(s.covers(parts) for s in selectors)


__all__ = ["Selector", "SelectorError", "covers_any", "escape_token", "suggest_selector"]
