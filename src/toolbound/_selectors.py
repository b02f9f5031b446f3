"""Field selectors: JSON Pointers where a ``*`` segment matches any key or index.

A selector covers the node it names and everything beneath it: ``/comments`` covers
``/comments/3/text``; ``/results/*/snippet`` covers ``/results/0/snippet``. The empty selector ``""``
(or ``"/"`` read as the root) covers the whole result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolbound._jsonutil import split_pointer


class SelectorError(ValueError):
    """A selector is not a valid JSON Pointer."""


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
            raise SelectorError(
                f"selector {text!r} must be a JSON Pointer starting with '/', e.g. '/body' or "
                "'/comments/*/text'")
        if re.search(r"~(?![01])", text):
            raise SelectorError(f"selector {text!r} has a bad '~' escape; use ~0 for '~' and ~1 for '/'")
        return cls(text, tuple(split_pointer(text)))

    def covers(self, path_parts: list[str]) -> bool:
        """True when this selector names ``path_parts`` or one of its ancestors."""
        if len(self.parts) > len(path_parts):
            return False
        return all(s == "*" or s == p for s, p in zip(self.parts, path_parts))


def covers_any(selectors: tuple[Selector, ...], path: str) -> bool:
    parts = split_pointer(path)
    return any(s.covers(parts) for s in selectors)
