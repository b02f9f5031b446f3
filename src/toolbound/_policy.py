"""Per-tool policy: which fields outsiders can influence, budgets, quarantine mode and actions.

A policy is ``defaults`` plus a table per tool name. The effective policy for one tool is the
defaults overlaid with that tool's table, key by key (a tool's ``actions`` table replaces the
defaults' ``actions`` only for the severities it names).

Field trust (the rule every stage relies on):
- no ``external`` list (or no table for the tool): every string is external, except those covered
  by an ``internal`` selector;
- an ``external`` list: exactly the strings it covers are external; ``internal`` may carve out
  exceptions, but a path covered by both stays external (fail safe).

So ``internal`` only matters when ``external`` is not set; ``toolbound policy check`` warns when
both are given. Validation never upgrades trust: a result is trusted only when no string in it is
external (``SanitizedResult.trusted``).

Other keys:
- ``quarantine``: how external strings are shown to the model: ``delimit`` (default; between
  boundary markers carrying a per-call nonce), ``datamark`` (a marker character between words),
  ``encode`` (base64) or ``reference`` (withheld; ``SanitizedResult.dereference("$Q1")``).
- ``html``: ``true`` when the tool's external strings are HTML, or a list of selectors naming the
  HTML fields; those are reduced to text, with hidden content surfaced as findings.
- ``allow_domains``: markdown links and images to these domains (and their subdomains; a
  leading ``*.`` means subdomains only) are left alone; all others are defanged.
- ``actions``: for the highest severity among a result's findings (``low``, ``medium``,
  ``high``): ``annotate`` (default), ``redact``, ``block`` or ``require_approval``.
- ``max_tokens``, ``threshold``: the output budget and the detection threshold.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from toolbound._argpolicy import ArgPolicy
from toolbound._jsonutil import escape_token
from toolbound._selectors import Selector, SelectorError, covers_any

QuarantineMode = Literal["delimit", "datamark", "encode", "reference"]
Action = Literal["annotate", "redact", "block", "require_approval"]

QUARANTINE_MODES: tuple[str, ...] = ("delimit", "datamark", "encode", "reference")
ACTIONS: tuple[str, ...] = ("annotate", "redact", "block", "require_approval")

DEFAULT_ACTIONS: dict[str, Action] = {"low": "annotate", "medium": "annotate", "high": "annotate"}

_DOMAIN = re.compile(r"(?:\*\.)?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*"
                     r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")


def suggest_domain(text: str) -> str | None:
    """``https://Example.com/path`` -> ``example.com``; None when nothing sensible comes out."""
    t = text.strip().lower()
    t = re.sub(r"^[a-z][a-z0-9+.-]*://", "", t)
    t = t.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    t = t.rsplit("@", 1)[-1].split(":", 1)[0].strip(".")
    return t if t and _DOMAIN.fullmatch(t) and t != text else None


def check_domain(text: Any) -> str:
    """Validate one ``allow_domains`` entry; returns it lowercased. Raises ValueError."""
    if not isinstance(text, str):
        raise ValueError(f"domain must be a string, got {type(text).__name__}")
    d = text.strip().lower().rstrip(".")
    try:
        d = d.encode("idna").decode("ascii") if not d.isascii() else d
    except UnicodeError:
        pass
    if not _DOMAIN.fullmatch(d):
        hint = suggest_domain(text)
        raise ValueError(f"{text!r} is not a domain name" +
                         (f"; did you mean {hint!r}?" if hint else "; write it like 'example.com'"))
    return d


def _check_selector_list(v: list[str] | None) -> list[str] | None:
    if v is not None:
        for s in v:
            try:
                Selector.parse(s)
            except SelectorError as exc:
                raise ValueError(str(exc)) from None
    return v


class Actions(BaseModel):
    """The action taken on a result, by the highest severity among its findings."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    low: Action = "annotate"
    medium: Action = "annotate"
    high: Action = "annotate"

    def for_severity(self, severity: str) -> str:
        return str(getattr(self, severity, "annotate"))


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
    args: ArgPolicy | None = None

    @field_validator("external", "internal")
    @classmethod
    def _check_selectors(cls, v: list[str] | None) -> list[str] | None:
        return _check_selector_list(v)

    @field_validator("html")
    @classmethod
    def _check_html(cls, v: bool | list[str] | None) -> bool | list[str] | None:
        if isinstance(v, list):
            _check_selector_list(v)
        return v

    @field_validator("allow_domains")
    @classmethod
    def _check_domains(cls, v: list[str] | None) -> list[str] | None:
        return None if v is None else [check_domain(d) for d in v]


class Policy(BaseModel):
    """A whole policy: ``defaults`` plus ``tools.NAME`` tables."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    defaults: ToolPolicy = ToolPolicy()
    tools: dict[str, ToolPolicy] = {}
    source: str | None = Field(default=None, exclude=True)

    _cache: dict[str | None, EffectivePolicy] = PrivateAttr(default_factory=dict)

    def for_tool(self, tool: str | None) -> EffectivePolicy:
        """The effective policy for ``tool`` (defaults overlaid with the tool's table).

        The result is cached per tool name (both objects are immutable).
        """
        eff = self._cache.get(tool)
        if eff is None:
            table = self.tools.get(tool) if tool is not None else None
            merged = self.defaults.model_dump(exclude_none=True)
            if table is not None:
                own = table.model_dump(exclude_none=True, exclude_unset=True)
                if "actions" in own and "actions" in merged:
                    own["actions"] = {**merged["actions"], **own["actions"]}
                merged.update(own)
            eff = EffectivePolicy(tool=tool, has_entry=table is not None, **merged)
            if len(self._cache) < 1024:
                self._cache[tool] = eff
        return eff

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Policy:
        """A validated copy (caches are not shared with the original)."""
        data = self.model_dump(exclude_unset=True)
        data.update(update or {})
        new = type(self).model_validate(data)
        object.__setattr__(new, "source", self.source)
        return new


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
    args: ArgPolicy | None = None

    if TYPE_CHECKING:  # derived state, set in model_post_init (plain attributes, not pydantic's)
        _ext: tuple[Selector, ...]
        _int: tuple[Selector, ...]
        _html: tuple[Selector, ...]
        _memo: dict[str, bool]
        _trie: dict[str, Any]
        _digest: str

    @field_validator("allow_domains")
    @classmethod
    def _check_domains(cls, v: list[str]) -> list[str]:
        return [check_domain(d) for d in v]

    def model_post_init(self, __context: object) -> None:
        # Derived state lives in the instance __dict__ (not pydantic private attributes): these
        # are read for every string of every result, and plain attribute access is much faster.
        # model_copy() below revalidates, so a copy never shares them.
        ext = tuple(Selector.parse(s) for s in (self.external or []))
        set_ = object.__setattr__
        set_(self, "_ext", ext)
        set_(self, "_int", tuple(Selector.parse(s) for s in self.internal))
        set_(self, "_html", tuple(Selector.parse(s) for s in self.html)
             if isinstance(self.html, list) else ())
        set_(self, "_memo", {})
        set_(self, "_trie", _build_trie(self._int if self.external is None else ext))
        set_(self, "_digest", "")

    def model_copy(self, *, update: Mapping[str, Any] | None = None,
                   deep: bool = False) -> EffectivePolicy:
        """A validated copy: ``update`` values are checked like any other policy value."""
        data = self.model_dump()
        data.update(update or {})
        return type(self).model_validate(data)

    def is_external(self, path: str) -> bool:
        """Whether the string at JSON Pointer ``path`` can be influenced by an outside party."""
        if self.external is None and not self._int:
            return True
        memo = self._memo
        hit = memo.get(path)
        if hit is None:
            if self.external is None:
                hit = not covers_any(self._int, path)
            else:
                hit = covers_any(self._ext, path)
            if len(memo) >= 65536:  # the policy object is shared across calls: stay bounded
                memo.clear()
            memo[path] = hit
        return hit

    def external_strings(self, data: Any) -> list[tuple[str, str]]:
        """Every external string in ``data`` as ``(json_pointer, string)``, in document order.

        The same answer as filtering every string leaf with :meth:`is_external`, computed in one
        walk over a trie of the selectors: subtrees no selector reaches are decided at once, and
        covered subtrees are not checked again.
        """
        out: list[tuple[str, str]] = []
        all_ext = self.external is None
        trie = self._trie
        if _END in trie:  # a root selector
            if not all_ext:
                _collect(data, "", out)
        elif not trie:
            if all_ext:
                _collect(data, "", out)
        else:
            _walk(data, "", (trie,), all_ext, out)
        return out

    def leaves(self, data: Any) -> list[tuple[str, Any, bool]]:
        """Every non-container leaf of ``data`` as ``(json_pointer, value, external)``, in document
        order (``external`` as :meth:`is_external` answers it)."""
        out: list[tuple[str, Any, bool]] = []
        trie = self._trie
        all_ext = self.external is None
        if _END in trie or not trie:
            _leaves(data, "", (), all_ext != (_END in trie), all_ext, out)
        else:
            _leaves(data, "", (trie,), False, all_ext, out)
        return out

    def is_html(self, path: str) -> bool:
        """Whether the string at ``path`` is HTML to reduce to text (only external strings are)."""
        if self.html is True:
            return True
        if self.html is False:
            return False
        return covers_any(self._html, path)

    def domain_allowed(self, host: str | None) -> bool:
        """Whether links and images to ``host`` may stay as they are (``allow_domains``)."""
        if not host or not self.allow_domains:
            return False
        return domain_allowed(host, self.allow_domains)

    def digest(self) -> str:
        """SHA-256 of the effective policy's canonical JSON (recorded in provenance)."""
        digest = self._digest
        if not digest:
            body = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
            digest = hashlib.sha256(body.encode()).hexdigest()
            object.__setattr__(self, "_digest", digest)
        return digest


_END = "\x00end"


def _build_trie(selectors: tuple[Selector, ...]) -> dict[str, Any]:
    root: dict[str, Any] = {}
    for sel in selectors:
        node = root
        for part in sel.parts:
            node = node.setdefault(part, {})
        node[_END] = True
    return root


def _tok(k: str) -> str:
    return k if ("~" not in k and "/" not in k) else escape_token(k)


def _collect(node: Any, path: str, out: list[tuple[str, str]]) -> None:
    t = type(node)
    if t is str:
        out.append((path, node))
    elif t is dict:
        for k, v in node.items():
            _collect(v, path + "/" + _tok(k), out)
    elif t is list:
        for i, v in enumerate(node):
            _collect(v, f"{path}/{i}", out)


def _walk(node: Any, path: str, tries: tuple[dict[str, Any], ...], all_ext: bool,
          out: list[tuple[str, str]]) -> None:
    """Walk ``node`` (not yet decided; ``tries`` are the selector-trie nodes that reach it)."""
    t = type(node)
    if t is str:
        if all_ext:  # no internal selector covers it
            out.append((path, node))
        return
    if t is dict:
        for k, v in node.items():
            _step(k, v, path + "/" + _tok(k), tries, all_ext, out)
    elif t is list:
        for i, v in enumerate(node):
            k = str(i)
            _step(k, v, path + "/" + k, tries, all_ext, out)


def _step(key: str, v: Any, p: str, tries: tuple[dict[str, Any], ...], all_ext: bool,
          out: list[tuple[str, str]]) -> None:
    nxt = _next(key, tries)
    if not nxt:  # no selector reaches below: external iff there is no external list
        if all_ext:
            _collect(v, p, out)
    elif _END in nxt[0] or (len(nxt) > 1 and any(_END in n for n in nxt)):  # covered
        if not all_ext:
            _collect(v, p, out)
    else:
        _walk(v, p, nxt, all_ext, out)


def _all_leaves(node: Any, path: str, ext: bool, out: list[tuple[str, Any, bool]]) -> None:
    t = type(node)
    if t is dict:
        for k, v in node.items():
            p = path + "/" + (k if ("~" not in k and "/" not in k) else escape_token(k))
            tv = type(v)
            if tv is dict or tv is list:
                _all_leaves(v, p, ext, out)
            else:  # a leaf: no call deeper
                out.append((p, v, ext))
    elif t is list:
        for i, v in enumerate(node):
            tv = type(v)
            if tv is dict or tv is list:
                _all_leaves(v, f"{path}/{i}", ext, out)
            else:
                out.append((f"{path}/{i}", v, ext))
    else:
        out.append((path, node, ext))


def _leaves(node: Any, path: str, tries: tuple[dict[str, Any], ...], decided: bool, all_ext: bool,
            out: list[tuple[str, Any, bool]]) -> None:
    """``tries`` empty: the subtree is decided and ``decided`` is its externality."""
    if not tries:
        _all_leaves(node, path, decided, out)
        return
    t = type(node)
    if t is dict:
        for k, v in node.items():
            _leaf_step(k, v, path + "/" + _tok(k), tries, all_ext, out)
    elif t is list:
        for i, v in enumerate(node):
            k = str(i)
            _leaf_step(k, v, path + "/" + k, tries, all_ext, out)
    else:
        out.append((path, node, all_ext))


def _leaf_step(key: str, v: Any, p: str, tries: tuple[dict[str, Any], ...], all_ext: bool,
               out: list[tuple[str, Any, bool]]) -> None:
    nxt = _next(key, tries)
    if not nxt:
        _all_leaves(v, p, all_ext, out)
    elif _END in nxt[0] or (len(nxt) > 1 and any(_END in n for n in nxt)):
        _all_leaves(v, p, not all_ext, out)
    else:
        _leaves(v, p, nxt, False, all_ext, out)


def _next(key: str, tries: tuple[dict[str, Any], ...]) -> tuple[dict[str, Any], ...]:
    if len(tries) == 1:
        n = tries[0]
        a = n.get(key)
        b = n.get("*")
        if a is None:
            return () if b is None else (b,)
        return (a,) if b is None else (a, b)
    return tuple([n[key] for n in tries if key in n] + [n["*"] for n in tries if "*" in n])


def domain_allowed(host: str, allow: list[str] | tuple[str, ...]) -> bool:
    """``host`` matches an entry: ``example.com`` allows itself and its subdomains, ``*.example.com``
    only its subdomains."""
    h = host.lower().rstrip(".")
    for d in allow:
        if d.startswith("*."):
            if h.endswith(d[1:]):
                return True
        elif h == d or h.endswith("." + d):
            return True
    return False


DEFAULT_POLICY = Policy()
