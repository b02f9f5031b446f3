"""Loading policy files (TOML), with errors that name the file, the key and the closest valid key.

Every problem raises :class:`toolbound.PolicyError` with a message shaped like::

    policy.toml: tools.get_ticket.extrnal: unknown key; did you mean 'external'?
    policy.toml: tools.get_ticket.external[0]: selector 'body' must be a JSON Pointer starting
        with '/'; did you mean '/body'?
    policy.toml: tools.get_ticket.actions.high: unknown action 'blokc'; did you mean 'block'?

Keys are checked before values, and values before the pydantic models are built, so the message is
about the first problem a person would fix.
"""

from __future__ import annotations

import difflib
import math
import sys
import threading
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from toolbound._errors import PolicyError
from toolbound._policy import ACTIONS, QUARANTINE_MODES, Actions, Policy, ToolPolicy, check_domain
from toolbound._selectors import Selector, SelectorError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

TOP_KEYS = ("defaults", "tools")
TOOL_KEYS = tuple(ToolPolicy.model_fields)
ACTION_KEYS = tuple(Actions.model_fields)


def _closest(word: str, valid: tuple[str, ...], what: str = "keys") -> str:
    m = difflib.get_close_matches(str(word), valid, n=1, cutoff=0.5)
    if not m:
        m = difflib.get_close_matches(str(word).lower(), valid, n=1, cutoff=0.5)
    return f"; did you mean {m[0]!r}?" if m else f"; valid {what}: {', '.join(valid)}"


def _type_name(v: Any) -> str:
    return {str: "a string", bool: "a boolean", int: "an integer", float: "a number",
            list: "a list", dict: "a table"}.get(type(v), type(v).__name__)


class _Checker:
    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, key: str, problem: str) -> PolicyError:
        return PolicyError(f"{self.file}: {key}: {problem}" if key else f"{self.file}: {problem}")

    def keys(self, where: str, table: Any, valid: tuple[str, ...]) -> None:
        if not isinstance(table, dict):
            raise self.fail(where or "top level", f"must be a table, got {_type_name(table)}")
        for k in table:
            if k not in valid:
                key = f"{where}.{k}" if where else k
                raise self.fail(key, f"unknown key{_closest(k, valid)}")

    def selectors(self, key: str, v: Any) -> None:
        if isinstance(v, str):
            name = key.rsplit(".", 1)[-1]
            raise self.fail(key, f"must be a list of selectors, got a string; did you mean "
                                 f"{name} = [{v!r}]?")
        if not isinstance(v, list):
            raise self.fail(key, f"must be a list of selectors like ['/body'], got {_type_name(v)}")
        for i, s in enumerate(v):
            try:
                Selector.parse(s)
            except SelectorError as exc:
                raise self.fail(f"{key}[{i}]", str(exc)) from None

    def table(self, where: str, t: dict[str, Any]) -> None:
        self.keys(where, t, TOOL_KEYS)
        for k in ("external", "internal"):
            if k in t:
                self.selectors(f"{where}.{k}", t[k])
        if "html" in t and not isinstance(t["html"], bool):
            self.selectors(f"{where}.html", t["html"])
        if "quarantine" in t:
            q = t["quarantine"]
            if not isinstance(q, str) or q not in QUARANTINE_MODES:
                raise self.fail(f"{where}.quarantine", f"unknown quarantine mode {q!r}"
                                f"{_closest(str(q), QUARANTINE_MODES, 'modes')}")
        if "max_tokens" in t:
            m = t["max_tokens"]
            if isinstance(m, bool) or not isinstance(m, int) or m < 64:
                raise self.fail(f"{where}.max_tokens", f"must be a whole number of tokens, at least 64; "
                                f"got {m!r}")
        if "threshold" in t:
            th = t["threshold"]
            if isinstance(th, bool) or not isinstance(th, (int, float)) or not math.isfinite(th) \
                    or not 0.0 <= th <= 1.0:
                raise self.fail(f"{where}.threshold", f"must be a number from 0.0 to 1.0; got {th!r}")
        if "allow_domains" in t:
            d = t["allow_domains"]
            if isinstance(d, str):
                raise self.fail(f"{where}.allow_domains", f"must be a list of domains; did you mean "
                                f"allow_domains = [{d!r}]?")
            if not isinstance(d, list):
                raise self.fail(f"{where}.allow_domains", f"must be a list of domains like "
                                f"['example.com'], got {_type_name(d)}")
            for i, item in enumerate(d):
                try:
                    check_domain(item)
                except ValueError as exc:
                    raise self.fail(f"{where}.allow_domains[{i}]", str(exc)) from None
        if "actions" in t:
            a = t["actions"]
            self.keys(f"{where}.actions", a, ACTION_KEYS)
            for sev, act in a.items():
                if not isinstance(act, str) or act not in ACTIONS:
                    raise self.fail(f"{where}.actions.{sev}", f"unknown action {act!r}"
                                    f"{_closest(str(act), ACTIONS, 'actions')}")


def policy_from_dict(data: dict[str, Any], *, file: str = "<policy>") -> Policy:
    """Validate a parsed policy document; raises :class:`PolicyError` on any problem."""
    c = _Checker(file)
    c.keys("", data, TOP_KEYS)
    if "defaults" in data:
        c.table("defaults", data["defaults"])
    tools = data.get("tools", {})
    if not isinstance(tools, dict):
        raise c.fail("tools", "must hold one table per tool, like [tools.get_ticket]")
    for name, table in tools.items():
        if not isinstance(table, dict):
            raise c.fail(f"tools.{name}", f"must be a table like [tools.{name}] with keys such as "
                         f"external = ['/body'], got {_type_name(table)}")
        c.table(f"tools.{name}", table)
    try:
        return Policy.model_validate({**data, "source": file})
    except ValidationError as exc:  # values the checks above do not cover (e.g. 'args' tables)
        e = exc.errors()[0]
        loc = ".".join(str(p) for p in e["loc"])
        raise PolicyError(f"{file}: {loc}: {e['msg']}") from None


_CACHE: dict[tuple[str, int, int], Policy] = {}
_LOCK = threading.Lock()


def load_policy(path: str | Path) -> Policy:
    """Load and validate a TOML policy file.

    A file that has not changed (same path, size and modification time) is parsed once; the
    :class:`Policy` is immutable, so sharing it is safe.

    Raises:
        PolicyError: the file is missing, is not TOML, or holds an unknown key or bad value; the
            message names the file, the key and the closest valid key.
    """
    p = Path(path)
    try:
        st = p.stat()
        key = (str(p.resolve()), st.st_size, st.st_mtime_ns)
    except OSError:
        key = None
    if key is not None:
        with _LOCK:
            hit = _CACHE.get(key)
        if hit is not None:
            return hit
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
    policy = policy_from_dict(data, file=str(p))
    if key is not None:
        with _LOCK:
            if len(_CACHE) > 64:
                _CACHE.clear()
            _CACHE[key] = policy
    return policy


def policy_warnings(policy: Policy) -> list[str]:
    """Things in a valid policy that probably do not do what their author meant."""
    out: list[str] = []
    tables = [("defaults", policy.defaults)] + [(f"tools.{n}", t) for n, t in policy.tools.items()]
    for where, t in tables:
        if t.external is not None and t.internal:
            out.append(f"{where}: 'internal' has no effect when 'external' is set (only the "
                       "fields 'external' lists are external; a field covered by both stays external)")
        if isinstance(t.html, list) and t.external is not None:
            ext = tuple(Selector.parse(s) for s in t.external)
            for s in t.html:
                if not any(e.covers(list(Selector.parse(s).parts)) for e in ext):
                    out.append(f"{where}.html: {s!r} is not covered by 'external'; HTML is only "
                               "reduced to text in external fields")
        if t.external == []:
            out.append(f"{where}: external = [] marks every field trusted; results of this tool "
                       "are never quarantined")
    return out
