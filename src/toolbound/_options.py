"""Options of :func:`toolbound.sanitize`, validated once per call.

Limits (what a breach gives):
- ``max_depth`` (default 64, at most 200): nesting deeper than this gives ``invalid_output``;
- ``max_bytes`` (default 64 MiB): a canonical JSON larger than this gives ``result_too_large``;
- ``max_string_length`` (default 16 Mi characters): a longer string gives ``result_too_large``.
"""

from __future__ import annotations

import difflib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toolbound._errors import OptionError


class Options(BaseModel):
    """Keyword options accepted by ``sanitize(raw, tool=..., policy=..., **options)``."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    output_schema: dict[str, Any] | bool | None = None
    max_tokens: int | None = Field(default=None, ge=64)
    call_id: str | None = Field(default=None, max_length=200)
    origin: dict[str, str] | None = None
    session: str | None = Field(default=None, max_length=200)
    store: Any = None
    threshold: float | None = Field(default=None, ge=0.0, le=1.0)
    quarantine: Literal["delimit", "datamark", "encode", "reference"] | None = None
    encoding: str | None = None
    max_depth: int = Field(default=64, ge=1, le=200)
    max_bytes: int = Field(default=64 * 1024 * 1024, ge=1)
    max_string_length: int = Field(default=16 * 1024 * 1024, ge=1)


OPTION_NAMES: tuple[str, ...] = tuple(Options.model_fields)


def parse_options(options: dict[str, Any]) -> Options:
    """Validate keyword options; misuse raises :class:`OptionError` naming the closest option."""
    unknown = [k for k in options if k not in Options.model_fields]
    if unknown:
        k = unknown[0]
        close = difflib.get_close_matches(k, OPTION_NAMES, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else f"; valid options: {', '.join(OPTION_NAMES)}"
        raise OptionError(f"sanitize() got an unknown option {k!r}{hint}")
    try:
        return Options(**options)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise OptionError(f"sanitize() option {loc!r}: {first['msg']}") from None
