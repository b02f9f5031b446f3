"""Loading policy files (TOML), with errors that name the file, the key and the closest valid key."""

from __future__ import annotations

import difflib
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from toolbound._errors import PolicyError
from toolbound._policy import Actions, Policy, ToolPolicy

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

TOP_KEYS = ("defaults", "tools")
TOOL_KEYS = tuple(ToolPolicy.model_fields)
ACTION_KEYS = tuple(Actions.model_fields)


def _closest(key: str, valid: tuple[str, ...]) -> str:
    m = difflib.get_close_matches(key, valid, n=1, cutoff=0.5)
    return f"; did you mean {m[0]!r}?" if m else f"; valid keys: {', '.join(valid)}"


def _check_keys(where: str, table: Any, valid: tuple[str, ...], file: str) -> None:
    if not isinstance(table, dict):
        raise PolicyError(f"{file}: [{where}] must be a table, got {type(table).__name__}")
    for k in table:
        if k not in valid:
            raise PolicyError(f"{file}: unknown key {k!r} in [{where}]{_closest(k, valid)}")


def policy_from_dict(data: dict[str, Any], *, file: str = "<policy>") -> Policy:
    """Validate a parsed policy document; raises :class:`PolicyError` on any problem."""
    _check_keys("top level", data, TOP_KEYS, file)
    _check_keys("defaults", data.get("defaults", {}), TOOL_KEYS, file)
    if "actions" in data.get("defaults", {}):
        _check_keys("defaults.actions", data["defaults"]["actions"], ACTION_KEYS, file)
    tools = data.get("tools", {})
    if not isinstance(tools, dict):
        raise PolicyError(f"{file}: [tools] must hold one table per tool, like [tools.get_ticket]")
    for name, table in tools.items():
        _check_keys(f"tools.{name}", table, TOOL_KEYS, file)
        if isinstance(table, dict) and "actions" in table:
            _check_keys(f"tools.{name}.actions", table["actions"], ACTION_KEYS, file)
    try:
        return Policy.model_validate({**data, "source": file})
    except ValidationError as exc:
        e = exc.errors()[0]
        loc = ".".join(str(p) for p in e["loc"])
        raise PolicyError(f"{file}: {loc}: {e['msg']}") from None


def load_policy(path: str | Path) -> Policy:
    """Load and validate a TOML policy file.

    Raises:
        PolicyError: the file is missing, is not TOML, or holds an unknown key or bad value; the
            message names the file, the key and the closest valid key.
    """
    p = Path(path)
    try:
        text = p.read_bytes().decode("utf-8")
    except OSError as exc:
        raise PolicyError(f"{p}: cannot read policy file ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise PolicyError(f"{p}: policy file is not UTF-8 text") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(f"{p}: not valid TOML: {exc}") from None
    return policy_from_dict(data, file=str(p))
