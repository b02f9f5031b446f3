"""A policy's argument checks: the ``[tools.NAME.args]`` table (layer 2 of input validation).

::

    [tools.read_file.args]
    workspace = "/srv/workspace"        # path arguments must stay inside this directory
    path_fields = ["/path"]             # ... these ones (names or JSON Pointers; '*' for each item)
    allowed_values = { mode = ["read", "append"] }
    max_length = { note = 2000 }
    max_items = { tags = 20 }

Each key becomes one of :mod:`toolbound.checks` (``within_workspace``, ``allowed_values``,
``max_length``, ``max_items``), run after the tool's input schema accepted the arguments, in the
order workspace, allowed values, lengths, items. Fields are top-level names (``"path"``) or JSON
Pointers (``"/src/path"``, ``"/files/*/path"``). A relative ``workspace`` is relative to the policy
file's directory (``~`` is expanded). A tool's ``args`` table replaces the one in ``[defaults]``.
"""

from __future__ import annotations

import difflib
import os
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator, model_validator
from pydantic_core import PydanticCustomError

ARG_KEYS = ("workspace", "path_fields", "allowed_values", "max_length", "max_items")


def _check_field(field: Any) -> str:
    from toolbound._checks import _parse_field

    try:
        _parse_field(field)
    except (TypeError, ValueError) as exc:
        raise ValueError(str(exc)) from None
    return str(field)


class ArgPolicy(BaseModel):
    """The ``args`` table of a tool (or of ``[defaults]``): argument checks beyond the schema."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    workspace: str | None = Field(default=None, min_length=1)
    path_fields: list[str] | None = None
    allowed_values: dict[str, list[JsonValue]] | None = None
    max_length: dict[str, int] | None = None
    max_items: dict[str, int] | None = None

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for k in data:
                if k not in ARG_KEYS:
                    m = difflib.get_close_matches(str(k), ARG_KEYS, n=1, cutoff=0.5)
                    hint = f"; did you mean {m[0]!r}?" if m else f"; valid keys: {', '.join(ARG_KEYS)}"
                    raise PydanticCustomError("unknown_key", "unknown key {key}{hint}",
                                              {"key": repr(k), "hint": hint})
        return data

    @field_validator("path_fields")
    @classmethod
    def _fields(cls, v: list[str] | None) -> list[str] | None:
        if v is not None:
            if not v:
                raise ValueError("path_fields must name at least one field, like ['/path']")
            v = [_check_field(f) for f in v]
        return v

    @field_validator("allowed_values")
    @classmethod
    def _allowed(cls, v: dict[str, list[Any]] | None) -> dict[str, list[Any]] | None:
        if v is not None:
            for k, values in v.items():
                _check_field(k)
                if not values:
                    raise ValueError(f"allowed_values.{k} must list at least one value")
        return v

    @field_validator("max_length", "max_items")
    @classmethod
    def _limits(cls, v: dict[str, int] | None) -> dict[str, int] | None:
        if v is not None:
            for k, n in v.items():
                _check_field(k)
                if isinstance(n, bool) or n < 0:
                    raise ValueError(f"the limit for {k!r} must be a whole number, 0 or more")
        return v

    @model_validator(mode="after")
    def _paired(self) -> ArgPolicy:
        if self.path_fields and not self.workspace:
            raise PydanticCustomError("missing_workspace", "path_fields needs workspace = \"DIR\", "
                                      "the directory the paths must stay inside")
        if self.workspace and not self.path_fields:
            raise PydanticCustomError("missing_path_fields", "workspace needs path_fields = "
                                      "[\"/path\"], the arguments that hold paths")
        return self

    def checks(self, base_dir: str | os.PathLike[str] | None = None) -> list[Any]:
        """The checks this table describes, for :func:`toolbound.validate_args`.

        Args:
            base_dir: The directory a relative ``workspace`` is relative to (the policy file's);
                None: the current directory.
        """
        from toolbound.checks import allowed_values, max_items, max_length, within_workspace

        out: list[Any] = []
        if self.workspace and self.path_fields:
            out.append(within_workspace(resolve_workspace(self.workspace, base_dir), *self.path_fields))
        for f, values in (self.allowed_values or {}).items():
            out.append(allowed_values(f, values))
        for f, n in (self.max_length or {}).items():
            out.append(max_length(f, n))
        for f, n in (self.max_items or {}).items():
            out.append(max_items(f, n))
        return out


def resolve_workspace(workspace: str, base_dir: str | os.PathLike[str] | None) -> str:
    """``workspace`` with ``~`` expanded, relative to ``base_dir`` when it is relative."""
    w = os.path.expanduser(workspace)
    if not os.path.isabs(w) and base_dir is not None:
        w = os.path.join(os.fspath(base_dir), w)
    return w


def policy_base_dir(source: str | None) -> str | None:
    """The directory of a policy file (``Policy.source``), for relative workspaces."""
    if not source or source.startswith("<"):
        return None
    return os.path.dirname(os.path.abspath(source))
