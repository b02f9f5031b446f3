"""Provenance: where a result came from, recorded as data in the metadata (never as prose)."""

from __future__ import annotations

import secrets
from datetime import datetime, timezone
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from toolbound._version import __version__


class SpanTrust(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    path: str
    trust: Literal["external", "internal"] = "external"


class Provenance(BaseModel):
    """Who produced a result, when, from what payload, under which policy."""

    model_config = ConfigDict(extra="forbid")

    tool: str | None = None
    call_id: str
    timestamp: str
    origin: dict[str, str] = Field(default_factory=dict)
    payload_sha256: str
    policy_sha256: str
    toolbound_version: str = __version__
    trust: Literal["trusted", "untrusted"] = "untrusted"
    spans: list[SpanTrust] = Field(default_factory=list)


def new_call_id() -> str:
    return "call_" + secrets.token_hex(8)


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
