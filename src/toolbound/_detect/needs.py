"""Literals a pattern cannot match without: a sound, cheap test that lets a window skip a pattern.

For each rule pattern, :func:`required_literals` derives groups of literal strings such that every
match of the pattern contains at least one string of every group (a conjunction of disjunctions),
e.g. ``\\b(?:use|call)\\s+[a-z]+(?:_[a-z]+)+`` gives ``(("use", "call"), ("_",))``. Before a pattern
runs over a window, the scanner checks these with ``str.find`` on a lower-cased view of the
window; when a group is absent, no match can exist there and the regex run is skipped. Only the
cost changes: a window skipped this way is one in which the pattern finds nothing.

Soundness rests on three things:

- the pattern is parsed with the standard library's parser (the rule packs use the syntax the two
  engines share; a pattern it cannot parse gets no literals and always runs);
- only what is sure is kept: literal characters, small sets of literal characters, groups,
  alternations and repeats (``{n,m}`` with ``n >= 1`` keeps its body's literals); anything else
  (classes, ``.``, back-references) contributes nothing, and zero-width assertions contribute the
  empty string (they consume nothing, so the strings on either side are adjacent);
- case: patterns run with IGNORECASE, so literals are lower-cased, and non-ASCII characters are
  kept only when they have no case (CJK, kana, Hangul, Arabic, punctuation) or are letters whose
  case-insensitive matches all read as the same letter in the view (basic Cyrillic, Latin-1 and
  Latin Extended-A letters: "ž", "ř", "ł", "ş", "ğ"; session 15). The view that is checked is the
  lower-cased text with every case variant read as the
  lower case of its upper case (``ſ`` as ``s``, the Cyrillic ``ᲀ`` as ``в``; ``ſ`` is the one
  non-ASCII character that the regex module matches to an ASCII letter and that ``str.lower``
  leaves alone; the Kelvin sign lower-cases to ``k``); a text whose lower-casing changes its length
  (``İ``) is not checked.
  ``tests/test_detect_needs.py`` verifies these facts against the installed regex module.
"""

from __future__ import annotations

import re
import warnings
from functools import lru_cache
from itertools import product
from typing import Any

try:  # Python 3.11+
    import re._constants as _c  # type: ignore[import-not-found]
    import re._parser as _p  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _p  # type: ignore[no-redef]

__all__ = ["Needs", "Presence", "SCRIPTS", "check_view", "first_literals", "required_literals", "required_scripts", "satisfied",
           "scripts_satisfied", "start_positions", "text_scripts"]

Needs = tuple[tuple[str, ...], ...]
"""Groups of literals: every match contains one literal of every group."""

MAX_ALTERNATIVES = 24   # strings an exact set may hold before it is given up
MAX_GROUP = 16          # strings a kept group may hold (each costs one str.find per window)
MAX_GROUPS = 4          # groups kept per pattern
MAX_RANGE = 8           # a character range in a set expands to at most this many characters
MAX_FIRSTS = 128        # start strings first_literals may return (one str.find each per window)

_ZERO_WIDTH = {_c.AT, _c.ASSERT, _c.ASSERT_NOT}
_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", _c.MAX_REPEAT)}
_ATOMIC = getattr(_c, "ATOMIC_GROUP", None)


# Characters that are a case variant of a letter without being its lower case ("ſ" of "s", "ς" of
# "σ", the Cyrillic Extended-C letters of "в", "д", "о", "с", "т", ...): every character x with
# x.upper().lower() != x.lower(). Letters they stand for are not trusted as literals.
_VARIANTS = ("\u00b5\u0131\u017f\u0345\u03c2\u03d0\u03d1\u03d5\u03d6\u03f0\u03f1\u03f5"
             "\u1c80\u1c81\u1c82\u1c83\u1c84\u1c85\u1c86\u1c87\u1c88\u1e9b\u1fbe")
# The check view reads each variant as the lower case of its upper case ("ᲀ" as "в", "ſ" as "s"), so
# the letters they stand for can be literals too.
_CANON = {ord(x): x.upper().lower() for x in _VARIANTS}
assert all(len(v) == 1 for v in _CANON.values())
_VARIANT_RE = re.compile("[" + _VARIANTS + "]")


# Latin Extended-A letters whose case mapping is not one letter to one letter ("İ" lower-cases to two
# characters, "ŉ" upper-cases to two, "ĸ" has no upper case) are not trusted ("ı" and "ſ" are variants).
_EXTENDED_A_UNSURE = frozenset((0x130, 0x138, 0x149))


def _cased_ok(ch: str) -> bool:
    """Cased letters whose every case-insensitive match reads as ``ch.lower()`` in the check view
    (basic Cyrillic, Latin-1 and Latin Extended-A letters; ``tests/test_detect_needs.py`` checks this
    against the regex module for every character it accepts)."""
    c = ord(ch)
    if ch in _VARIANTS:
        return False
    return (0x400 <= c <= 0x45F or (0xC0 <= c <= 0xFE and c not in (0xD7, 0xDF, 0xF7))
            or (0x100 <= c <= 0x17F and c not in _EXTENDED_A_UNSURE))


def _char(code: int) -> str | None:
    """A literal character as the check view holds it, or None when case makes it unsure."""
    ch = chr(code)
    if ch.isascii():
        return ch.lower()
    if ch.lower() == ch and ch.upper() == ch and ch.casefold() == ch and ch.swapcase() == ch:
        return ch  # no case: only itself matches it
    if _cased_ok(ch):
        return ch.lower()
    return None


def _set_chars(items: list[tuple[Any, Any]]) -> set[str] | None:
    out: set[str] = set()
    for op, av in items:
        if op is _c.LITERAL:
            ch = _char(av)
            if ch is None:
                return None
            out.add(ch)
        elif op is _c.RANGE:
            lo, hi = av
            if hi - lo >= MAX_RANGE:
                return None
            for code in range(lo, hi + 1):
                ch = _char(code)
                if ch is None:
                    return None
                out.add(ch)
        else:  # NEGATE, CATEGORY, ...: unsure
            return None
    return out or None


def _cross(a: set[str], b: set[str], limit: int = MAX_ALTERNATIVES) -> set[str] | None:
    if len(a) * len(b) > limit:
        return None
    return {x + y for x, y in product(a, b)}


def _best(groups: list[frozenset[str]]) -> frozenset[str] | None:
    """The most selective group: longest shortest string, then fewest strings."""
    usable = [g for g in groups if g and "" not in g and len(g) <= MAX_ALTERNATIVES]
    if not usable:
        return None
    return max(usable, key=lambda g: (min(len(s) for s in g), -len(g)))


def _seq(items: Any) -> tuple[set[str] | None, list[frozenset[str]]]:
    """``(exact strings the sequence can match or None, necessary groups)``."""
    groups: list[frozenset[str]] = []
    exact: set[str] | None = {""}
    run: set[str] = {""}

    def flush() -> None:
        nonlocal run
        if "" not in run:
            groups.append(frozenset(run))
        run = {""}

    for item in items:
        ex, gs = _node(item)
        groups.extend(gs)
        if ex is None:
            flush()
            exact = None
            continue
        nr = _cross(run, ex)
        if nr is None:
            flush()
            nr = set(ex) if len(ex) <= MAX_ALTERNATIVES else {""}
        run = nr
        if exact is not None:
            exact = _cross(exact, ex)
    flush()
    return exact, groups


def _node(item: tuple[Any, Any]) -> tuple[set[str] | None, list[frozenset[str]]]:
    op, av = item
    if op is _c.LITERAL:
        ch = _char(av)
        return (None, []) if ch is None else ({ch}, [])
    if op is _c.IN:
        chars = _set_chars(av)
        return (None, []) if chars is None or len(chars) > MAX_ALTERNATIVES else (chars, [])
    if op in _ZERO_WIDTH:
        return {""}, []
    if op is _c.SUBPATTERN:
        return _seq(av[-1])
    if _ATOMIC is not None and op is _ATOMIC:
        return _seq(av)
    if op is _c.BRANCH:
        alts = [_seq(a) for a in av[1]]
        exact: set[str] | None = set()
        for ex, _ in alts:
            if ex is None or exact is None:
                exact = None
            else:
                exact |= ex
        if exact is not None and len(exact) > MAX_ALTERNATIVES:
            exact = None
        groups: list[frozenset[str]] = []
        union: set[str] = set()
        for ex, gs in alts:
            own = list(gs)
            if ex is not None and "" not in ex:
                own.append(frozenset(ex))
            b = _best(own)
            if b is None:
                union = set()
                break
            union |= b
        if union and len(union) <= MAX_ALTERNATIVES:
            groups.append(frozenset(union))
        return exact, groups
    if op in _REPEATS:
        lo, hi, sub = av
        ex, gs = _seq(sub)
        if lo == 0:
            if hi == 1 and ex is not None:
                return ex | {""}, []
            return None, []
        if ex is not None and "" not in ex:
            gs = gs + [frozenset(ex)]
        if lo == hi and ex is not None:
            out: set[str] | None = {""}
            for _ in range(lo):
                out = _cross(out, ex) if out is not None else None
            return out, gs
        return None, gs
    return None, []  # ANY, NOT_LITERAL, CATEGORY, GROUPREF, ...: no sure literal


@lru_cache(maxsize=8)
def _parse(pattern: str, flags: int) -> Any:
    """The standard library's parse of ``pattern`` (None when it cannot parse it: such a pattern
    gets no literals and no scripts, so it always runs). A small cache: the scanner runs the three
    analyses of one pattern one after the other."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _p.parse(pattern, flags)
    except Exception:  # noqa: BLE001 - syntax only the regex module knows
        return None


def required_literals(pattern: str, flags: int = re.IGNORECASE | re.DOTALL | re.MULTILINE) -> Needs:
    """Groups of literals every match of ``pattern`` contains (empty: nothing is sure)."""
    parsed = _parse(pattern, flags)
    if parsed is None:
        return ()
    exact, groups = _seq(parsed)
    if exact is not None and "" not in exact and len(exact) <= MAX_ALTERNATIVES:
        groups.append(frozenset(exact))
    # A string containing another string of its group adds nothing ("injections" holds "injection").
    groups = [frozenset(x for x in g if not any(y != x and y in x for y in g)) for g in groups]
    kept: list[frozenset[str]] = []
    for g in sorted({g for g in groups if g and "" not in g and len(g) <= MAX_GROUP},
                    key=lambda g: (-min(len(s) for s in g), len(g), sorted(g))):
        if any(k <= g for k in kept):
            continue  # a group implied by a kept one (a subset is the stronger condition)
        kept.append(g)
        if len(kept) == MAX_GROUPS:
            break
    # longest strings first: a hit on an early string ends the group's check sooner
    return tuple(tuple(sorted(g, key=lambda s: (-len(s), s))) for g in kept)


def _firsts_node(item: tuple[Any, Any]) -> set[str] | None:
    """Non-empty strings one of which every match of ``item`` starts with (None: unsure)."""
    op, av = item
    if op is _c.LITERAL or op is _c.IN:
        ex, _ = _node(item)
        return ex if ex and "" not in ex else None
    if op is _c.SUBPATTERN:
        return _firsts_seq(av[-1])
    if _ATOMIC is not None and op is _ATOMIC:
        return _firsts_seq(av)
    if op is _c.BRANCH:
        out: set[str] = set()
        for alt in av[1]:
            f = _firsts_seq(alt)
            if f is None:
                return None
            out |= f
        return out
    if op in _REPEATS:
        lo, _hi, sub = av
        return _firsts_seq(sub) if lo >= 1 else None
    return None


def _firsts_seq(items: Any) -> set[str] | None:
    """Non-empty strings one of which every match of the sequence starts with (None: unsure).

    Exact items are concatenated ("ig" "nore" -> "ignore"); the first item that is not exact adds
    the strings its own matches start with and ends the prefix.
    """
    prefix: set[str] = {""}
    for item in items:
        ex, _ = _node(item)
        if ex is not None:
            nxt = _cross(prefix, ex, MAX_FIRSTS)
            if nxt is None:
                break
            prefix = nxt
            continue
        f = _firsts_node(item)
        if f is not None:
            nxt = _cross(prefix, f, MAX_FIRSTS)
            if nxt is not None:
                prefix = nxt
        break
    if "" in prefix:
        return None  # some match may start with something unknown (or with nothing known yet)
    return prefix


def first_literals(pattern: str, flags: int = re.IGNORECASE | re.DOTALL | re.MULTILINE) -> tuple[str, ...] | None:
    """Strings one of which every match of ``pattern`` starts with, lower-cased (None: unsure).

    ``\\b(?:ignore|disregard)\\s+...`` gives ``("disregard", "ignore")``: a match can start only where
    one of them occurs, so the scanner tries the pattern there (``match``) instead of searching
    every position of a window.
    """
    parsed = _parse(pattern, flags)
    if parsed is None:
        return None
    f = _firsts_seq(parsed)
    if not f or len(f) > MAX_FIRSTS:
        return None
    return tuple(sorted(f))


def min_width(pattern: str, flags: int = re.IGNORECASE | re.DOTALL | re.MULTILINE) -> int:
    """The fewest characters any match of ``pattern`` spans (0 when unsure). A window shorter than
    that cannot hold a match, so the scanner skips it (short field values: ids, names, statuses)."""
    parsed = _parse(pattern, flags)
    if parsed is None:
        return 0
    try:
        return max(0, int(parsed.getwidth()[0]))
    except Exception:  # noqa: BLE001 - be safe: unsure means "could be empty"
        return 0


def start_positions(view: str, firsts: tuple[str, ...], a: int, b: int, limit: int) -> list[int] | None:
    """Sorted offsets in ``view[a:b]`` where one of ``firsts`` occurs whole (None: more than ``limit``)."""
    out: set[int] = set()
    find = view.find
    for s in firsts:
        i = find(s, a, b)
        while i >= 0:
            out.add(i)
            if len(out) > limit:
                return None
            i = find(s, i + 1, b)
    return sorted(out)


def check_view(text: str, low: str | None = None) -> str | None:
    """The lower-cased view of ``text`` that :func:`satisfied` checks (None: do not check)."""
    if low is None:
        low = text.lower()
    if text.isascii():
        return low
    if len(low) != len(text):
        return None
    if _VARIANT_RE.search(low):
        low = low.translate(_CANON)
    return low


_SOLID: dict[str, bool] = {}  # literal -> whether it holds no whitespace (nor the token separator)


class Presence:
    """Which literals occur anywhere in one view: a cache owned by one scan of one text.

    A long result whose literal hits are dense (a thread of comments, a page of search results)
    becomes one window over nearly all of it, and each rule's patterns there check their verbs
    ("print", "output", "share"...) by searching the whole text, most of them absent. A literal
    without whitespace occurs in the view only inside one of its whitespace-separated tokens, so it
    is looked for once in the distinct tokens joined (a few hundred characters for a repetitive
    result) instead of the whole view; the answer is kept for the other rules and windows.
    """

    __slots__ = ("view", "known", "_tokens")

    def __init__(self, view: str) -> None:
        self.view = view
        self.known: dict[str, bool] = {}
        self._tokens: str | None = None

    def has(self, s: str) -> bool:
        k = self.known.get(s)
        if k is None:
            solid = _SOLID.get(s)
            if solid is None:
                solid = _SOLID[s] = "\x00" not in s and s.split() == [s]
            if solid:
                tokens = self._tokens
                if tokens is None:
                    tokens = self._tokens = "\x00".join(set(self.view.split()))
                k = s in tokens
            else:
                k = s in self.view
            self.known[s] = k
        return k


def satisfied(needs: Needs, view: str, a: int, b: int, seen: Presence | None = None) -> bool:
    """Whether every group of ``needs`` has a literal inside ``view[a:b]``.

    ``seen`` (the :class:`Presence` of ``view``) answers for windows spanning at least half the
    view, where asking it costs no more than searching the window; smaller windows only skip the
    literals it already knows to be absent.
    """
    find = view.find
    if seen is None:
        for group in needs:
            for s in group:
                if find(s, a, b) >= 0:
                    break
            else:
                return False
        return True
    n = len(view)
    if 2 * (b - a) < n:
        known = seen.known
        for group in needs:
            for s in group:
                if known.get(s) is not False and find(s, a, b) >= 0:
                    break
            else:
                return False
        return True
    whole = a == 0 and b >= n
    has = seen.has
    for group in needs:
        for s in group:
            if has(s) and (whole or find(s, a, b) >= 0):
                break
        else:
            return False
    return True


# -- scripts ---------------------------------------------------------------------------------------
#
# A pattern written for Chinese cannot match a text without a CJK character, whatever its literals
# look like to the analysis above (a big alternation of phrases keeps no literal group). For each
# pattern, required_scripts() gives the scripts of which every match holds a character; a text lacking
# one (text_scripts) skips the pattern. Most tool output is ASCII or Latin with a few curly quotes,
# so the other languages' patterns of a multilingual rule cost nothing there.
#
# A pattern character counts for a script only when it is in the script's *pattern* ranges and none
# of its case variants leaves them; a text counts as holding the script when it has any character in
# the wider *text* ranges, which also hold every character that matches a pattern character
# case-insensitively (Cyrillic Extended-C variants, the Kelvin and Angstrom signs, Greek
# variants...). tests/test_detect_needs.py checks both against Unicode's case mappings.

SCRIPTS: dict[str, tuple[str, str]] = {
    # name: (pattern ranges, text ranges) as regex character-class bodies
    "latin": ("\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff",
              "\u00aa\u00b5\u00ba\u00c0-\u024f\u1e00-\u1eff\u2c60-\u2c7f\ua720-\ua7ff"
              "\u2100-\u214f\ufb00-\ufb06"),
    "greek": ("\u0370-\u03ff\u1f00-\u1fff",
              "\u00b5\u0345\u0370-\u03ff\u1d00-\u1dbf\u1f00-\u1fff\u2100-\u214f"),
    "cyrillic": ("\u0400-\u052f", "\u0400-\u052f\u1c80-\u1c8f\u2de0-\u2dff\ua640-\ua69f"),
    "arabic": ("\u0600-\u06ff\u0750-\u077f\ufb50-\ufdff\ufe70-\ufeff",
               "\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff"),
    "cjk": ("\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff",
            "\u2e80-\u2fdf\u3000-\u30ff\u31c0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
            "\uff00-\uffef\U00020000-\U0003134f"),
    "hangul": ("\u1100-\u11ff\u3130-\u318f\uac00-\ud7af",
               "\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7ff\uffa0-\uffdc"),
}
_PATTERN_SCRIPT = [(name, re.compile(f"[{pr}]")) for name, (pr, _tr) in SCRIPTS.items()]
_TEXT_SCRIPT = [(name, re.compile(f"[{tr}]")) for name, (_pr, tr) in SCRIPTS.items()]
_PATTERN_RX = dict(_PATTERN_SCRIPT)


@lru_cache(maxsize=None)
def _script_of(code: int) -> str | None:
    """The script a pattern character requires of the text (None: none for sure)."""
    ch = chr(code)
    if ch.isascii():
        return None
    name = next((n for n, rx in _PATTERN_SCRIPT if rx.match(ch)), None)
    if name is None:
        return None
    rx = _PATTERN_RX[name]
    for v in (ch.lower(), ch.upper(), ch.casefold(), ch.title()):
        if any(not rx.match(x) for x in v):
            return None  # a case variant outside the script ("ſ" -> "S", "ı" -> "I")
    return name


ScriptNeeds = frozenset[frozenset[str]]
"""Groups of scripts: every match holds a character of one script of every group."""

_NO_SCRIPTS: ScriptNeeds = frozenset()


def _scripts_seq(items: Any) -> ScriptNeeds:
    out: set[frozenset[str]] = set()
    for item in items:
        out |= _scripts_node(item)
    return frozenset(out)


def _scripts_node(item: tuple[Any, Any]) -> ScriptNeeds:
    op, av = item
    if op is _c.LITERAL:
        name = _script_of(av)
        return frozenset({frozenset({name})}) if name else _NO_SCRIPTS
    if op is _c.IN:
        names: set[str | None] = set()
        for iop, iav in av:
            if iop is _c.LITERAL:
                names.add(_script_of(iav))
            elif iop is _c.RANGE:
                lo, hi = iav
                a = _script_of(lo)
                # a range counts only when every character in it (sampled densely) is in one script
                step = max(1, (hi - lo) // 256)
                names.add(a if a is not None and all(_script_of(c) == a for c in (*range(lo, hi + 1, step), hi))
                          else None)
            else:  # NEGATE, CATEGORY (\w, \s, ...): anything
                names.add(None)
        if names and None not in names:
            return frozenset({frozenset(names)})  # type: ignore[arg-type]
        return _NO_SCRIPTS
    if op is _c.SUBPATTERN:
        return _scripts_seq(av[-1])
    if _ATOMIC is not None and op is _ATOMIC:
        return _scripts_seq(av)
    if op is _c.ASSERT:  # a lookaround's text is in the text too
        return _scripts_seq(av[1])
    if op is _c.BRANCH:
        # one necessary group per alternative; their union is necessary for the branch
        union: set[str] = set()
        for alt in av[1]:
            groups = _scripts_seq(alt)
            if not groups:
                return _NO_SCRIPTS
            union |= min(groups, key=lambda g: (len(g), sorted(g)))
        return frozenset({frozenset(union)})
    if op in _REPEATS:
        lo, _hi, sub = av
        return _scripts_seq(sub) if lo >= 1 else _NO_SCRIPTS
    return _NO_SCRIPTS  # ASSERT_NOT, AT, ANY, CATEGORY, GROUPREF...: nothing sure


def required_scripts(pattern: str, flags: int = re.IGNORECASE | re.DOTALL | re.MULTILINE) -> ScriptNeeds:
    """Groups of scripts (keys of :data:`SCRIPTS`): every match of ``pattern`` holds a character of
    one script of every group (empty: nothing is sure)."""
    parsed = _parse(pattern, flags)
    if parsed is None:
        return _NO_SCRIPTS
    groups = _scripts_seq(parsed)
    # a group holding another group adds nothing
    return frozenset(g for g in groups if not any(h < g for h in groups))


def scripts_satisfied(needs: ScriptNeeds, present: frozenset[str]) -> bool:
    """Whether a text holding characters of ``present`` scripts can match."""
    return all(not present.isdisjoint(g) for g in needs)


def text_scripts(text: str) -> frozenset[str]:
    """Scripts of which ``text`` holds a character (in the wide text ranges); empty for ASCII."""
    if text.isascii():
        return frozenset()
    return frozenset(name for name, rx in _TEXT_SCRIPT if rx.search(text))
