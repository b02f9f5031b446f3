"""A superset of each rule in RE2: one linear-time search that proves where a rule cannot match.

On benign text most of the scanner's cost is spent proving a negative: a rule's literals hit
("system", "send", "output"), its windows are built, its required literals are looked up, its
patterns are tried at the places they could start, and nothing matches (on 4 KB chunks of ordinary
code and prose about 48 windows are searched per chunk and 0.03 of them hold a match). This module
answers that question for a whole window span in one pass of a compiled automaton instead.

For every rule pattern, :func:`to_re2` writes an RE2 pattern that matches *at least* wherever the
original matches (a superset): the regex module's syntax is read with the standard library's parser
(as :mod:`toolbound._detect.needs` does), and

- literal characters, character classes, alternations, groups and ``.`` (DOTALL) are kept, with
  RE2's Unicode case folding standing in for IGNORECASE (``tests/test_detect_superset.py`` checks,
  character by character, that RE2 folds every cased character at least as widely as the installed
  regex module does);
- ``^`` is kept (the patterns run MULTILINE; RE2 also reads the span's own start as a line start),
  and so is ``\\b`` before a word character that can only be ASCII (RE2's ``\\b`` reads ASCII words,
  and a character that is no Unicode word character is no ASCII one either); every other zero-width
  assertion (lookbehind, lookahead, ``\\b`` elsewhere, ``$``) is dropped: the characters a match
  consumes still match, whatever the assertion said. Keeping those two (session 40) stops a rule's
  verbs from matching inside other words ("pass" in "password") and its line-start alternatives
  from making the whole prefix optional: round 131's rule, whose superset had thrashed (about 6.5 ms
  per check), then cost nothing measurable;
- repeats keep only "optional", "at least one" or "any number" (``{2,40}`` becomes ``+``),
  possessive and lazy repeats and atomic groups become plain ones, a back-reference becomes ``.*``
  and a conditional group the alternation of its two branches: each reads more strings, never fewer;
- ``\\w``, ``\\d`` and ``\\s`` are Unicode-wide in the regex module and ASCII-only in RE2, so they
  become their ASCII members plus every non-ASCII character; a negated class keeps only what it
  surely excludes (its ASCII members and literal characters, without case variants).

A rule whose superset finds nothing in the span of its windows cannot match in any of them, so the
scanner skips it: only the cost changes, never a finding. The scanner asks on ASCII texts and texts
that are nearly so (most tool output; :func:`utf8` says which and why not the others). Where RE2 is not installed or a pattern does
not convert, every rule runs as before. Each superset is an RE2 *set* of one pattern plus a sentinel
that matches the end of every text (``\\z``), so one forward pass of RE2's DFA, linear in the text,
answers whether it matches; a DFA that runs out of its memory budget (:func:`budget`) reports no
index at all, and the rule then runs.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_left
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from toolbound._detect.needs import _firsts_seq

try:  # Python 3.11+
    import re._constants as _c  # type: ignore[import-not-found]
    import re._parser as _p  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _p  # type: ignore[no-redef]

try:
    import re2 as _re2
except ImportError:  # pragma: no cover - google-re2 is a dependency; without it every rule runs
    _re2 = None

__all__ = ["AVAILABLE", "Superset", "Unconvertible", "Utf8", "budget", "to_re2", "utf8"]

AVAILABLE = _re2 is not None
"""Whether RE2 (PyPI ``google-re2``) is importable; without it :class:`Superset` never skips a rule."""

MAX_MEM = 2 << 20
"""Bytes of RE2 memory for a rule with a small superset (a quarter of RE2's default); its program and
its DFA's states live in it. A DFA that fills it is emptied and goes on, and one that would thrash
gives up: the rule is then answered "possible" and runs as it would without the skip. Measured per
rule budget (peak RSS over the corpus's 23,243 texts, then detect() per 4 KB benign chunk; session
27): 1 MB 371 MB and 2,713 µs, 2 MB 378 MB and 2,582 µs, 8 MB 384 MB and 2,472 µs; without the skip
280 MB and 3,766 µs."""

MEM_PER_CHAR = 128
"""Bytes of RE2 memory per character of a rule's RE2 source, above :data:`MAX_MEM`: see :func:`budget`."""

MAX_MEM_CAP = 16 << 20
"""The most RE2 memory one rule's superset may use (see :func:`budget`)."""


def budget(n: int) -> int:
    """RE2's memory budget for a superset whose source is ``n`` characters long.

    A long superset (a rule in eleven languages, its RE2 source 30-140 thousand characters) has a big
    program and a wide byte map, so each DFA state is large, and many of its gaps (``[^\\n]{0,120}``
    read as ``[^\\n]*``) stay open at once, so a 4 KB text visits many states. In a flat 2 MB such
    DFAs were emptied again and again (each DFA state rebuilt, 200-1,000 µs per 4 KB instead of
    about 20). So the budget grows with the source, :data:`MEM_PER_CHAR` bytes per character, from
    :data:`MAX_MEM` up to :data:`MAX_MEM_CAP`; 72 of 680 rules get more than 2 MB. Session 39,
    measured: the rule scanner per 4 KB benign chunk (two scanners alternating in one process, 7
    rounds) 2,746 -> 2,167 µs (median, -21%); peak RSS over the corpus's 30,808 texts (corpus,
    generated and augmented records) 582 -> 628 MB. The automata of all rules together stay under
    about 1.5 GB whatever the input (1.33 GB with a flat 2 MB)."""
    return min(max(n * MEM_PER_CHAR, MAX_MEM), MAX_MEM_CAP)


class Unconvertible(ValueError):
    """A pattern holds a construct :func:`to_re2` has no superset for (the rule then always runs)."""


_ANY = r"[\x{0}-\x{10FFFF}]"
_HI = r"\x{80}-\x{10FFFF}"
_ASCII_WORD = "0-9A-Za-z_"
_ASCII_DIGIT = "0-9"
_ASCII_SPACE = r"\t\n\x0b\x0c\r "
# Inside a class that is not negated: a superset of each category (its ASCII members, plus every
# non-ASCII character, plus the separators 0x1c-0x1f that Python counts as whitespace). A negated
# category alone is written as a negated class of its ASCII complement (\D: anything but 0-9).
_CAT_SUPERSET: dict[Any, str] = {
    _c.CATEGORY_DIGIT: _ASCII_DIGIT + _HI,
    _c.CATEGORY_WORD: _ASCII_WORD + _HI,
    _c.CATEGORY_SPACE: _ASCII_SPACE + r"\x1c-\x1f" + _HI,
}
_NEGATED_CAT: dict[Any, str] = {  # \D, \W, \S: the negated class of what they surely exclude
    _c.CATEGORY_NOT_DIGIT: _ASCII_DIGIT,
    _c.CATEGORY_NOT_WORD: _ASCII_WORD,
    _c.CATEGORY_NOT_SPACE: _ASCII_SPACE,
}
# Inside a negated class: the members each category surely has (ASCII only).
_CAT_SURE: dict[Any, str] = {
    _c.CATEGORY_DIGIT: _ASCII_DIGIT,
    _c.CATEGORY_WORD: _ASCII_WORD,
    _c.CATEGORY_SPACE: _ASCII_SPACE,
    _c.CATEGORY_NOT_DIGIT: r"\x00-/:-\x7f",
    _c.CATEGORY_NOT_WORD: r"\x00-/:-@\[-\^`\{-\x7f",
    _c.CATEGORY_NOT_SPACE: r"\x00-\x08\x0e-\x1f!-\x7f",
}
_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", _c.MAX_REPEAT)}
_ATOMIC = getattr(_c, "ATOMIC_GROUP", None)
_ZERO_WIDTH = {_c.AT, _c.ASSERT, _c.ASSERT_NOT}


# Where the regex module folds case more widely than RE2's Unicode orbits: it matches "i" with "İ"
# (U+0130) and "I" with "ı" (U+0131), and "ß"/"ẞ" with U+1DF95 (a letter of a newer Unicode than
# RE2's). A literal or range holding a member of one of these groups reads the whole group
# (tests/test_detect_superset.py compares both engines on every character with a case relation, so
# a wider regex module shows up there).
_FOLD_GROUPS = ((0x49, 0x69, 0x130, 0x131), (0xDF, 0x1E9E, 0x1DF95))
_GROUP_OF = {cp: "".join("\\x{%x}" % m for m in g) for g in _FOLD_GROUPS for cp in g}


def _ch(cp: int) -> str:
    group = _GROUP_OF.get(cp)
    return "[" + group + "]" if group else "\\x{%x}" % cp


def _hex(cp: int) -> str:
    return "\\x{%x}" % cp


def _member(cp: int) -> str:
    return _GROUP_OF.get(cp) or "\\x{%x}" % cp


def _span(lo: int, hi: int) -> str:
    extra = "".join(_GROUP_OF[g[0]] for g in _FOLD_GROUPS if any(lo <= m <= hi for m in g))
    return "\\x{%x}-\\x{%x}" % (lo, hi) + extra


def _negated(body: list[str]) -> str:
    # Case-sensitive on purpose: RE2 would add the case variants of the excluded characters to
    # what is excluded; without them the class reads more characters (a superset either way).
    return "(?-i:[^" + "".join(body) + "])" if body else _ANY


def _class(items: list[tuple[Any, Any]]) -> str:
    if items and items[0][0] is _c.NEGATE:
        body = []
        for op, av in items[1:]:
            if op is _c.LITERAL:
                body.append(_hex(av))
            elif op is _c.RANGE:
                body.append(_hex(av[0]) + "-" + _hex(av[1]))
            elif op is _c.CATEGORY and av in _CAT_SURE:
                body.append(_CAT_SURE[av])
            else:
                raise Unconvertible(f"negated class item {op}")
        return _negated(body)
    body = []
    for op, av in items:
        if op is _c.LITERAL:
            body.append(_member(av))
        elif op is _c.RANGE:
            body.append(_span(av[0], av[1]))
        elif op is _c.CATEGORY and av in _CAT_SUPERSET:
            body.append(_CAT_SUPERSET[av])
        elif op is _c.CATEGORY and av in _NEGATED_CAT:
            if len(items) == 1:
                return _negated([_NEGATED_CAT[av]])
            return _ANY  # [\W...] : anything but an ASCII word character, or more: read any
        else:
            raise Unconvertible(f"class item {op}")
    return "[" + "".join(body) + "]" if body else _negated([])


# ASCII word characters that the regex module, ignoring case, matches only with ASCII characters: all
# but i, k and s, whose case variants include "İ"/"ı" (U+0130/U+0131), the Kelvin sign (U+212A) and
# the long s (U+017F); tests/test_detect_superset.py checks this against every code point.
_BOUNDARY_SAFE = frozenset("0123456789_abcdefghjlmnopqrtuvwxyzABCDEFGHJLMNOPQRTUVWXYZ")


def _first_chars(items: Sequence[tuple[Any, Any]]) -> set[str] | None:
    """The characters (lower-cased) every match of ``items`` can start with; None when unsure, as
    :func:`toolbound._detect.needs.first_literals` reads the starts of a pattern."""
    firsts = _firsts_seq(items)
    return None if firsts is None else {f[0] for f in firsts}


def _seq(items: Sequence[tuple[Any, Any]]) -> str:
    out = []
    for i, (op, av) in enumerate(items):
        if op is _c.AT and av is _c.AT_BOUNDARY:
            # \b before a word character that can only be ASCII: RE2's \b (ASCII words) holds wherever
            # the regex module's (Unicode words) does, since a character that is not a Unicode word
            # character is no ASCII one. At the start of the span RE2 reads the text's start, where
            # \b before a word character always holds. A \b after a word may stand at the end of
            # the span, where the regex module reads the end of the text and RE2 the byte after it;
            # it is dropped, as is every other assertion.
            first = _first_chars(items[i + 1:])
            if first and first <= _BOUNDARY_SAFE:
                out.append(r"\b")
            continue
        if op is _c.AT and av is _c.AT_BEGINNING:
            # ^ (the patterns run MULTILINE): the start of a line. RE2 reads the span's own start as
            # one, and inside the span the same newlines as the regex module.
            out.append("(?m:^)")
            continue
        out.append(_node(op, av))
    return "".join(out)


def _node(op: Any, av: Any) -> str:
    if op is _c.LITERAL:
        return _ch(av)
    if op is _c.NOT_LITERAL:
        return _negated([_hex(av)])
    if op is _c.ANY:
        return _ANY
    if op is _c.IN:
        return _class(av)
    if op is _c.CATEGORY:
        return _class([(op, av)])
    if op is _c.BRANCH:
        return "(?:" + "|".join(_seq(s) for s in av[1]) + ")"
    if op is _c.SUBPATTERN:
        return "(?:" + _seq(av[-1]) + ")"  # flag changes dropped: the pattern stays case-insensitive
    if _ATOMIC is not None and op is _ATOMIC:
        return "(?:" + _seq(av) + ")"
    if op in _REPEATS:
        lo, hi, item = av
        body = _seq(item)
        if not body:
            return ""
        if hi == 1:
            quant = "?" if lo == 0 else ""
        elif lo == hi and lo <= 4:
            quant = "{%d}" % lo
        else:
            quant = "+" if lo >= 1 else "*"
        return "(?:" + body + ")" + quant
    if op in _ZERO_WIDTH:
        return ""
    if op is _c.GROUPREF:
        return _ANY + "*"
    if op is _c.GROUPREF_EXISTS:
        _, yes, no = av
        return "(?:" + _seq(yes) + "|" + (_seq(no) if no else "") + ")"
    raise Unconvertible(f"construct {op}")


def to_re2(pattern: str, flags: int = re.IGNORECASE | re.DOTALL | re.MULTILINE) -> str:
    """An RE2 pattern matching wherever ``pattern`` (regex module syntax, run with ``flags``) matches,
    and possibly elsewhere. Raises :class:`Unconvertible` (or the parser's error) when it cannot."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parsed = _p.parse(pattern, flags)
    return "(?i)" + _seq(parsed)


MAX_NON_ASCII = 0.02
"""The share of non-ASCII characters up to which a text is read by the supersets (see :func:`utf8`)."""

_NON_ASCII = re.compile(r"[^\x00-\x7f]")


class Utf8:
    """A text's UTF-8 bytes and the map from its character offsets to byte offsets."""

    __slots__ = ("data", "_pos", "_extra")

    def __init__(self, data: bytes, pos: list[int] | None, extra: list[int] | None) -> None:
        self.data = data
        self._pos = pos      # offsets of the non-ASCII characters (None: the text is ASCII)
        self._extra = extra  # extra[k]: bytes beyond one per character of the first k of them

    def at(self, i: int) -> int:
        """The byte offset of character offset ``i``."""
        if self._pos is None:
            return i
        return i + self._extra[bisect_left(self._pos, i)]  # type: ignore[index]


def utf8(text: str) -> Utf8 | None:
    """``text`` encoded for the supersets, when it is ASCII or nearly so (at most
    :data:`MAX_NON_ASCII` of its characters beyond ASCII: curly quotes, an accented name, an emoji in
    English tool output). None for other texts, whose many multi-byte characters in many scripts
    would make each rule's automaton grow far more states, and for text with lone surrogates."""
    if text.isascii():
        return Utf8(text.encode("ascii"), None, None)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return None
    if len(data) - len(text) > 3 * MAX_NON_ASCII * len(text):
        return None  # each non-ASCII character adds 1-3 bytes: surely over the share, no list built
    pos = [m.start() for m in _NON_ASCII.finditer(text)]
    if len(pos) > MAX_NON_ASCII * len(text):
        return None
    extra = [0]
    acc = 0
    for p in pos:
        c = ord(text[p])
        acc += 1 if c < 0x800 else 2 if c < 0x10000 else 3
        extra.append(acc)
    return Utf8(data, pos, extra)


class Superset:
    """Per rule, a compiled RE2 superset of its patterns, built the first time it is asked for.

    :meth:`possible` answers whether the rule can match anywhere in a byte span of a text encoded
    to UTF-8. A rule without a superset (RE2 missing, a pattern that does not convert or compile)
    is always possible. Thread-safe: two threads compiling one rule store equal objects.
    """

    def __init__(self, patterns: Sequence[Sequence[str]], source: Callable[[str], str] | None = None) -> None:
        self._patterns = [tuple(p) for p in patterns]
        # pattern -> its RE2 source (to_re2, or the analyses shipped beside the packs: analysis.py)
        self._source = source or to_re2
        self._compiled: dict[int, Any] = {}
        self._lock = threading.Lock()

    def compiled(self, ri: int) -> Any:
        """Rule ``ri``'s compiled superset (None: it has none, so it always runs): an RE2 set of one
        pattern and a sentinel that matches every text. A set answers *whether* its patterns match
        with one forward pass of RE2's DFA (a search would also run a reverse pass for where), and
        the sentinel tells a DFA that ran out of memory (no index at all) from no match.

        The sentinel is ``\\z``, the empty string at the end of the text, not ``""`` (session 39): a
        sentinel that matches at every position makes every DFA state a match state, and a set's DFA
        then records its match at every byte. Over the 80 rules most asked on the benign 4 KB chunks of
        ``bench_detect_speed.py``, each asked about whole chunks: 1,734 µs per chunk with ``""``, 832
        with ``\\z`` (-52%), the same answers on all 500 chunks."""
        try:
            return self._compiled[ri]
        except KeyError:
            pass
        out = None
        pats = self._patterns[ri]
        if _re2 is not None and pats:
            try:
                conv = self._source
                src = conv(pats[0]) if len(pats) == 1 else "|".join(f"(?:{conv(p)})" for p in pats)
                options = _re2.Options()
                options.max_mem = budget(len(src))
                options.log_errors = False  # an exhausted DFA is answered "possible", not logged
                out = _re2.Set.SearchSet(options)
                out.Add(src)
                out.Add(r"\z")
                out.Compile()
            except Exception:  # noqa: BLE001 - unconvertible or too big for RE2: the rule always runs
                out = None
        with self._lock:
            self._compiled[ri] = out
        return out

    def possible(self, ri: int, data: bytes, lo: int, hi: int) -> bool:
        """Whether rule ``ri`` may match inside ``data[lo:hi]`` (False proves it cannot)."""
        rx = self.compiled(ri)
        if rx is None:
            return True
        found = rx.Match(data[lo:hi] if lo or hi < len(data) else data)
        return found is None or len(found) != 1  # [1]: only the sentinel matched
    def coverage(self) -> tuple[int, int]:
        """``(rules with a superset, rules with patterns)``: compiles every rule (for ``rules check``)."""
        have = sum(1 for ri, p in enumerate(self._patterns) if p and self.compiled(ri) is not None)
        return have, sum(1 for p in self._patterns if p)
