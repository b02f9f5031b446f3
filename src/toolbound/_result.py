"""SanitizedResult: what ``sanitize()`` returns.

It never says "valid" where it means "trusted": ``ok`` is about the call, ``trusted`` about who
could have written the content, and ``trusted`` is False whenever any string in the result can
be influenced by an outside party.
"""

from __future__ import annotations

import json
from typing import Any

from toolbound._context import Context, Span
from toolbound._envelope import Failure, Success
from toolbound._provenance import Provenance
from toolbound._types import Finding


class SanitizedResult:
    """The sanitized form of one tool result.

    Attributes:
        envelope: The typed envelope (``Success`` or ``Failure``).
        ok: Whether the tool call succeeded. Says nothing about trust.
        trusted: False whenever any part of the result can be influenced by an outside party.
        findings: Everything detection and normalisation found (path + offsets).
        spans: The quarantined spans (external strings).
        provenance: Where the result came from (tool, call id, time, payload hash, policy hash...).
        needs_approval: Policy asks a human to approve this result before it is used.
        handle: The handle to fetch the rest when the budget cut something, else None.
        pages: The number of pages behind ``handle`` (0 when nothing was cut).
        meta: Stage metadata (coercion notes, token counts, truncation reason, encoding...).
    """

    __slots__ = ("_ctx",)

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx

    @property
    def envelope(self) -> Success | Failure:
        env = self._ctx.envelope
        assert env is not None
        return env

    @property
    def ok(self) -> bool:
        return self.envelope.ok

    @property
    def trusted(self) -> bool:
        return not self._ctx.spans and not self._ctx.external_values

    @property
    def findings(self) -> list[Finding]:
        return list(self._ctx.findings)

    @property
    def spans(self) -> list[Span]:
        return list(self._ctx.spans)

    def dereference(self, ref: str) -> str:
        """The content of a quarantined span, by reference (``"$Q1"``, ``"Q1"`` or ``"<<Q1>>"``).

        For the dual-LLM pattern: in ``reference`` mode the model only sees ``$Q1`` with its
        length and findings; the host hands the text to a quarantined model or a person with this
        method. The text is the normalised one (what any model would have been shown); a span an
        action redacted returns its placeholder.

        Raises:
            KeyError: no span has that id; the message lists the valid references.
        """
        key = ref.strip() if isinstance(ref, str) else ""
        if key.startswith("<<") and key.endswith(">>"):
            key = key[2:-2]
        key = key.lstrip("$")
        for span in self._ctx.spans:
            if span.id == key:
                return span.text
        valid = ", ".join("$" + s.id for s in self._ctx.spans) or "none (this result has no spans)"
        raise KeyError(f"no quarantined span {ref!r} in this result; valid references: {valid}")

    @property
    def provenance(self) -> Provenance:
        return self._ctx.provenance

    @property
    def needs_approval(self) -> bool:
        return self._ctx.needs_approval

    @property
    def handle(self) -> str | None:
        return self._ctx.handle

    @property
    def pages(self) -> int:
        return self._ctx.pages

    @property
    def tool(self) -> str | None:
        return self._ctx.tool

    @property
    def meta(self) -> dict[str, Any]:
        m = {k: v for k, v in self._ctx.meta.items() if k != "canonical"}
        if self._ctx.notes:
            m["notes"] = list(self._ctx.notes)
        return m

    def to_model(self) -> str:
        """The compact text the model should see; it states plainly when content is untrusted."""
        return self._ctx.rendered or ""

    def to_dict(self) -> dict[str, Any]:
        """Everything, as JSON-ready data: envelope, trust, findings, spans, provenance, meta."""
        return {
            "envelope": self.envelope.model_dump(mode="json"),
            "trusted": self.trusted,
            "needs_approval": self.needs_approval,
            "findings": [f.to_dict() for f in self._ctx.findings],
            "spans": [s.to_dict() for s in self._ctx.spans],
            "provenance": self.provenance.model_dump(mode="json"),
            "handle": self.handle,
            "pages": self.pages,
            "meta": self.meta,
            "model_text": self.to_model(),
        }

    def to_json(self, *, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    def __repr__(self) -> str:
        state = "ok" if self.ok else f"error={self.envelope.error.code}"  # type: ignore[union-attr]
        return (f"<SanitizedResult tool={self.tool!r} {state} trusted={self.trusted} "
                f"findings={len(self._ctx.findings)} spans={len(self._ctx.spans)}>")
