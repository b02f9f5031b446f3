"""Provenance: where a result came from, recorded as data in the metadata (never as prose).

Every :class:`~toolbound.SanitizedResult` carries one :class:`Provenance`:

- ``tool``, ``call_id`` (the caller's, or a fresh ``call_...`` id), ``timestamp`` (UTC, ISO 8601
  with milliseconds and ``Z``);
- ``origin``: what the caller knows about the source, passed as ``sanitize(..., origin={...})``.
  Known keys are ``url``, ``domain``, ``author`` and ``mailbox``; others are kept as given. When
  only ``url`` is given, ``domain`` is filled from it;
- ``payload_sha256``: SHA-256 of the coerced payload's canonical JSON (before normalisation), so
  a host can tie the result to the exact bytes the tool returned;
- ``policy_sha256``: SHA-256 of the effective policy for this tool;
- ``toolbound_version``;
- ``trust`` for the whole result and ``spans``: the trust of each quarantined span (id, path).

None of it is rendered into the model's text beyond the header's tool, call id and trust.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timezone
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from toolbound._version import __version__

ORIGIN_KEYS: tuple[str, ...] = ("url", "domain", "author", "mailbox")


class SpanTrust(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    path: str
    trust: Literal["external", "internal"] = "external"


def domain_of(url: str) -> str | None:
    """The lowercased host of ``url`` (``//host`` and bare ``host/path`` included), or None."""
    u = url.strip()
    if not u:
        return None
    if "://" not in u and not u.startswith("//"):
        u = "//" + u
    try:
        host = urlsplit(u).hostname
    except ValueError:
        return None
    return host.rstrip(".") or None if host else None


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

    @field_validator("origin")
    @classmethod
    def _fill_origin(cls, v: dict[str, str]) -> dict[str, str]:
        out = {k: str(val) for k, val in v.items()}
        if "domain" in out:
            out["domain"] = out["domain"].strip().lower().rstrip(".")
        elif out.get("url"):
            d = domain_of(out["url"])
            if d:
                out["domain"] = d
        return out


def new_call_id() -> str:
    return "call_" + secrets.token_hex(8)


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
