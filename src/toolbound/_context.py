"""The state one ``sanitize()`` call carries through its stages.

Each stage (``toolbound._stages.*``) is a function ``run(ctx) -> None`` with one job; it reads
what earlier stages left and writes its own part. The order is fixed in ``_pipeline.STAGES``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolbound._envelope import Failure, Success
from toolbound._options import Options
from toolbound._policy import EffectivePolicy
from toolbound._provenance import Provenance
from toolbound._types import Finding


@dataclass(slots=True)
class Span:
    """One quarantined string: content an outside party can influence.

    Attributes:
        id: ``Q1``, ``Q2``, ... in document order; unique within one result.
        path: JSON Pointer of the string in the result's data (or ``/error/message``).
        text: The content as the model may see it (after normalisation and actions; the
            rendering then applies the quarantine mode).
        findings: Findings on this span. Offsets of every finding (``normalize``, ``html``,
            ``links`` and ``detect`` stages alike) refer to ``text`` after normalisation, i.e. what
            the model sees; removed characters are recorded as an empty range (``start == end``)
            at the place they were removed, with what was removed in ``detail``. When an action
            redacts the span, ``text`` becomes the placeholder and the offsets keep referring to
            the normalised text before redaction.
        redacted: Whether an action replaced the content with a placeholder.
        provenance: The result's provenance (tool, call id, time, origin...), shared by its spans.
    """

    id: str
    path: str
    text: str
    findings: list[Finding] = field(default_factory=list)
    trust: str = "external"
    redacted: bool = False
    provenance: Provenance | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "path": self.path, "text": self.text, "trust": self.trust,
                             "redacted": self.redacted,
                             "findings": [f.to_dict() for f in self.findings]}
        p = self.provenance
        if p is not None:
            d["provenance"] = {"tool": p.tool, "call_id": p.call_id, "timestamp": p.timestamp,
                               "origin": dict(p.origin), "trust": self.trust}
        return d


@dataclass
class Context:
    raw: Any
    tool: str | None
    policy: EffectivePolicy
    options: Options
    provenance: Provenance
    envelope: Success | Failure | None = None
    # Set by coerce when the error message came from the tool rather than toolbound's catalogue.
    error_from_tool: bool = False
    # Strings that will reach the model: (json_pointer, text); filled by quarantine.
    strings: list[tuple[str, str]] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)
    # The data's leaves as (json_pointer, value, external) after normalisation, left by normalize for
    # quarantine (one walk of the policy trie instead of two); None: quarantine walks the data.
    leaves: list[tuple[str, Any, bool]] | None = None
    # The data object whose canonical JSON is ``meta["canonical"]`` (set by coerce; normalisation and
    # redaction replace the data with a new object, so identity says whether it is still current).
    canonical_data: Any = None
    # Every value of an object/array result is external: render quotes the data as one block
    # (see toolbound._spanrender); set by quarantine.
    whole: bool = False
    # External values that are not strings (numbers, booleans, null): no span, but not trusted.
    external_values: int = 0
    findings: list[Finding] = field(default_factory=list)
    needs_approval: bool = False
    action: str = "annotate"
    handle: str | None = None
    pages: int = 0
    meta: dict[str, Any] = field(default_factory=dict)
    notes: list[dict[str, str]] = field(default_factory=list)
    nonce: str = ""
    # The budget stage's view of the spans (elided spans left out, cut spans with their cut text),
    # used by render instead of ``spans``; None: render ``spans``. ``spans`` stays complete.
    render_spans: list[Span] | None = None
    rendered: str | None = None

    def note(self, path: str, what: str) -> None:
        """Record a coercion or normalisation note (path + what was done), for the metadata."""
        self.notes.append({"path": path, "note": what})

    def fail(self, envelope: Failure) -> None:
        """Replace the envelope with a toolbound-generated failure (trusted message)."""
        self.envelope = envelope
        self.error_from_tool = False
        self.spans = []
        self.strings = []
        self.whole = False
        self.render_spans = None
