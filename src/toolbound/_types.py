"""Small value types shared by every stage: findings and detections.

Findings are plain frozen dataclasses (not pydantic models) because the detection engine creates
them on a hot path; `to_dict()` gives their JSON form.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Severity = Literal["low", "medium", "high"]
SEVERITIES: tuple[Severity, ...] = ("low", "medium", "high")
SEVERITY_RANK: dict[str, int] = {"low": 1, "medium": 2, "high": 3}


@dataclass(frozen=True, slots=True)
class Finding:
    """One piece of evidence found in a string that reaches the model.

    Attributes:
        rule_id: Stable id of the rule or stage check that produced it (e.g. ``override.ignore_previous``).
        family: Attack family (``override``, ``exfiltration``, ...) or normalisation kind.
        severity: ``low``, ``medium`` or ``high``.
        start: Start offset (characters) into the string the finding refers to.
        end: End offset (exclusive).
        reason: One line for people; never echoes the hostile payload.
        path: JSON Pointer of the string inside the result ("" for a top-level string or a plain text).
        score: The evidence weight in [0, 1].
        stage: Which stage produced it (``detect``, ``normalize``, ``html``, ``links``, ``model``,
            ``classifier``).
        detail: Optional extra data (e.g. the decoded text of hidden tag characters).
    """

    rule_id: str
    family: str
    severity: Severity
    start: int
    end: int
    reason: str
    path: str = ""
    score: float = 0.5
    stage: str = "detect"
    detail: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        if d["detail"] is None:
            del d["detail"]
        return d

    def at(self, path: str) -> Finding:
        """The same finding, placed at ``path`` inside a result."""
        return Finding(self.rule_id, self.family, self.severity, self.start, self.end, self.reason,
                       path, self.score, self.stage, self.detail)


@dataclass(frozen=True, slots=True)
class Detection:
    """The verdict of :func:`toolbound.detect` on one text."""

    flagged: bool
    score: float
    findings: list[Finding] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"flagged": self.flagged, "score": round(self.score, 6),
                "findings": [f.to_dict() for f in self.findings]}
