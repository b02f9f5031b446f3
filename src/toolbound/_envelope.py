"""The result envelope: one typed shape for every tool result the model sees.

Success ``{"ok": true, "data": <any JSON value>}``; failure
``{"ok": false, "error": {"code": ..., "message": ..., "retryable": ...}}``; discriminated on ``ok``.
A valid envelope says nothing about trust: see :attr:`toolbound.SanitizedResult.trusted`.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter

from toolbound._errors import CATALOGUE, ErrorCode, message_for


class ErrorInfo(BaseModel):
    """What went wrong, for the model: a stable code, an actionable message, and whether to retry."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    code: ErrorCode
    message: str = Field(min_length=1)
    retryable: bool = False


class Success(BaseModel):
    """A successful tool result. ``data`` is any JSON value; it is *not* thereby trusted."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ok: Literal[True] = True
    data: JsonValue = None


class Failure(BaseModel):
    """A failed tool call, as a normal, model-visible result."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ok: Literal[False] = False
    error: ErrorInfo


Envelope = Annotated[Union[Success, Failure], Field(discriminator="ok")]


@lru_cache(maxsize=1)
def envelope_adapter() -> TypeAdapter[Success | Failure]:
    return TypeAdapter(Envelope)


def parse_envelope(value: Any) -> Success | Failure:
    """Validate a Python value (e.g. parsed JSON) as an envelope; raises pydantic.ValidationError."""
    return envelope_adapter().validate_python(value)


def envelope_json_schema() -> dict[str, Any]:
    """The envelope's JSON Schema (Draft 2020-12), usable e.g. as an MCP tool's ``outputSchema``."""
    schema = envelope_adapter().json_schema()
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema",
              "title": "ToolboundEnvelope", **schema}
    return json.loads(json.dumps(schema))


def failure(code: str, detail: str | None = None, *, message: str | None = None,
            retryable: bool | None = None) -> Failure:
    """Build a failure envelope from the catalogue.

    Args:
        code: A catalogue code.
        detail: A short structural fact for the message (see :func:`toolbound._errors.message_for`).
        message: A complete message to use instead of the composed one.
        retryable: Overrides the code's default.
    """
    entry = CATALOGUE[code]
    return Failure(error=ErrorInfo(
        code=code,  # type: ignore[arg-type]
        message=message or message_for(code, detail),
        retryable=entry.retryable if retryable is None else retryable,
    ))
