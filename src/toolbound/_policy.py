"""Per-tool policy: which fields outsiders can influence, budgets, quarantine mode and actions.

A policy is ``defaults`` plus a table per tool name. The effective policy for one tool is the
defaults overlaid with that tool's table. A tool with no table treats every field as external.

Field trust (the rule every stage relies on):
- no ``external`` list (or no table for the tool): every string is external, except those covered
  by an ``internal`` selector;
- an ``external`` list: exactly the strings it covers are external; ``internal`` may carve out
  exceptions, but a path covered by both stays external (fail safe).
"""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from toolbound._selectors import Selector, SelectorError, covers_any

QuarantineMode = Literal["delimit", "datamark", "encode", "reference"]
Action = Literal["annotate", "redact", "block", "require_approval"]

DEFAULT_ACTIONS: dict[str, Action] = {"low": "annotate", "medium": "annotate", "high": "annotate"}


class Actions(BaseModel):
    """The action taken on a result, by the highest severity among its findings."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    low: Action = "annotate"
    medium: Action = "annotate"
    high: Action = "annotate"


class ToolPolicy(BaseModel):
    """One tool's table (or ``[defaults]``). ``None`` means "not set here; inherit"."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    external: list[str] | None = None
    internal: list[str] | None = None
    max_tokens: int | None = Field(default=None, ge=64)
    quarantine: QuarantineMode | None = None
    html: bool | list[str] | None = None
    allow_domains: list[str] | None = None
    threshold: float | None = Field(default=None, ge=0.0, le=1.0)
    actions: Actions | None = None

    @field_validator("external", "internal")
    @classmethod
    def _check_selectors(cls, v: list[str] | None) -> list[str] | None:
        if v is not None:
            for s in v:
                try:
                    Selector.parse(s)
                except SelectorError as exc:
                    raise ValueError(str(exc)) from None
        return v

    @field_validator("html")
    @classmethod
    def _check_html(cls, v: bool | list[str] | None) -> bool | list[str] | None:
        if isinstance(v, list):
            for s in v:
                try:
                    Selector.parse(s)
                except SelectorError as exc:
                    raise ValueError(str(exc)) from None
        return v


class Policy(BaseModel):
    """A whole policy: ``defaults`` plus ``tools.NAME`` tables."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    defaults: ToolPolicy = ToolPolicy()
    tools: dict[str, ToolPolicy] = {}
    source: str | None = Field(default=None, exclude=True)

    def for_tool(self, tool: str | None) -> EffectivePolicy:
        """The effective policy for ``tool`` (defaults overlaid with the tool's table)."""
        table = self.tools.get(tool) if tool is not None else None
        merged = self.defaults.model_dump(exclude_none=True)
        if table is not None:
            merged.update(table.model_dump(exclude_none=True))
        return EffectivePolicy(tool=tool, has_entry=table is not None, **merged)


class EffectivePolicy(BaseModel):
    """The policy in force for one call: every key resolved to a value."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str | None = None
    has_entry: bool = False
    external: list[str] | None = None
    internal: list[str] = []
    max_tokens: int | None = None
    quarantine: QuarantineMode = "delimit"
    html: bool | list[str] = False
    allow_domains: list[str] = []
    threshold: float | None = None
    actions: Actions = Actions()

    def model_post_init(self, __context: object) -> None:
        object.__setattr__(self, "_ext", tuple(Selector.parse(s) for s in (self.external or [])))
        object.__setattr__(self, "_int", tuple(Selector.parse(s) for s in self.internal))

    def is_external(self, path: str) -> bool:
        """Whether the string at JSON Pointer ``path`` can be influenced by an outside party."""
        ext: tuple[Selector, ...] = self._ext  # type: ignore[attr-defined]
        if self.external is None:
            return not covers_any(self._int, path)  # type: ignore[attr-defined]
        return covers_any(ext, path)

    def digest(self) -> str:
        """SHA-256 of the effective policy's canonical JSON (recorded in provenance)."""
        body = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(body.encode()).hexdigest()


DEFAULT_POLICY = Policy()
