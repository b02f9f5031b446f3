"""The scanner: every rule compiled once, run only where a cheap literal prefilter says it may match.

One scan of a text:

1. :func:`~toolbound._detect.fold.fold` it (ASCII text: no copy, identity offsets).
2. One pass of a combined prefilter (a trie-shaped alternation of every rule's literals, word
   anchored; a second one for CJK literals when the text is not ASCII). Each hit names the rules
   whose literals it matched.
3. Each hit rule's patterns run only inside its windows (``window`` characters around its hits,
   merged), with the regex module's ``timeout``. A pattern that times out yields an
   ``engine.timeout`` finding instead of hanging. On a text that is ASCII or nearly so, a rule
   first asks its RE2 superset (:mod:`~toolbound._detect.superset`, one linear pass over the
   stretch holding its windows, or over each window when that stretch is long) and is skipped where
   that finds nothing: on benign text nearly every rule.
4. Evasion layers, each only when there is something to undo: the prefilter runs on an ASCII view
   with leet digits read as letters, so a keyword spelt "1gn0re" hits and its rules also run on
   the unleeted window; letter padding ("i g n o r e") is collapsed in windows around runs that
   spell a keyword; encoded runs (base64, hex, URL, Unicode tags, rot13 when a rot13-encoded
   keyword hits the prefilter) are decoded and rescanned up to :data:`MAX_DEPTH` levels, and their
   findings point at the encoded run in the original.
5. ``context`` rules (text that discusses injection, quotes it, holds it in a code literal or a
   test-case table) weaken visible evidence nearby; they never become findings.

Offsets in findings are offsets into the text given to :meth:`Scanner.scan`.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from operator import itemgetter
from typing import Any

import regex

from toolbound._detect.fold import (Encoded, Folded, apply_edits, find_encoded, fold, rot13, spaced_runs,
                                    unleet)
from toolbound._detect.analysis import PatternAnalyses
from toolbound._detect.needs import (Needs, Presence, check_view, satisfied, scripts_satisfied,
                                     start_positions, text_scripts)
from toolbound._detect.spanindex import SpanIndex
from toolbound._detect.superset import AVAILABLE as SUPERSET
from toolbound._detect.superset import Superset, Utf8, utf8
from toolbound._detect.langid import GATED_LANGUAGES, gate_allows, text_words
from toolbound._detect.packs import CONTEXT_FAMILY, Rule, load_rules, pattern_flags
from toolbound._types import Finding

# The prefilter's hits ``(start, end, literal)`` in one ASCII text, in four groups (see
# ``Scanner._ascii_parts``), kept per string of a result for the scan of their join.
HitParts = tuple[list[tuple[int, int, str]], list[tuple[int, int, str]],
                 list[tuple[int, int, str]], list[tuple[int, int, str]]]

__all__ = ["DEFAULT_TIMEOUT", "MAX_DEPTH", "Scanner", "TIMEOUT_RULE_ID", "get_scanner"]

DEFAULT_TIMEOUT = 0.5
"""Seconds one pattern may run over one window before it is abandoned (``engine.timeout``)."""

MAX_DEPTH = 2
"""How many levels of encoding are decoded and rescanned (base64 inside base64 is depth 2)."""

TIMEOUT_RULE_ID = "engine.timeout"
TIMEOUT_WEIGHT = 0.5  # fail closed: a text that makes a rule time out is suspicious on its own
DAMPEN_RADIUS = 400   # characters around a context match within which evidence is weakened
WEAKENED_KINDS = frozenset({"joined", "spaced", "charref", "jsonesc"})
"""Kinds of decoded runs that context evidence anywhere in the document weakens (``_weaken_disguised``):
disguises that write-ups show as exhibits. Rounds 100 and 171 of ``benchmarks/model_selection.md``."""
MAX_FINDINGS_PER_RULE = 50
MAX_ANCHORED = 16  # a window with more candidate match starts than this is searched as a whole
PRESENCE_MIN = 1024  # texts shorter than this search their windows for literals directly (needs.Presence)
MAX_FIRSTS = 64    # start strings looked up per window before a rule is searched as a whole
SHORT_SCAN = 64    # texts up to this length have their findings cached (ids, names, statuses, labels)
SHORT_SCAN_LIMIT = 8192

# Strong keywords whose rot13 forms are added to the prefilter: rot13 is decoded only where one hits.
_ROT13_KEYWORDS = ("ignore", "disregard", "instructions", "previous", "system prompt", "assistant",
                   "jailbreak", "password", "reveal", "exfiltrate", "forward", "confidential")
_ROT13 = -1
_START = itemgetter(0)
_END = itemgetter(1)

_LEET_BYTES = bytes.maketrans(b"013457", b"oieast")
_CJK = re.compile(r"[\u0600-\u06ff\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def _trie_regex(words: Iterable[str]) -> str:
    """A regex alternation shaped like a trie: at most one branch can match at each step."""
    trie: dict[str, dict] = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict) -> str:
        alts = [re.escape(ch) + build(sub) for ch, sub in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(trie)


_LEET_DIGITS = frozenset("013457")


def _has_any(text: str, chars: frozenset[str]) -> bool:
    """Whether one of ``chars`` occurs in ``text``: one pass over a short text, else one
    ``str.__contains__`` per character (each a fast C search)."""
    if len(text) <= 128:
        return not chars.isdisjoint(text)
    return any(c in text for c in chars)


def _first_char_trie(words: Iterable[str]) -> str:
    """A pattern matching the first character of ``words`` exactly where one of them starts
    (``c(?=rest)|...``): its branches start with a literal character, so re skips to those."""
    by: dict[str, list[str]] = {}
    for w in words:
        by.setdefault(w[0], []).append(w[1:])
    alts = []
    for c in sorted(by):
        rest = _trie_regex(by[c])
        alts.append(re.escape(c) + (f"(?={rest})" if rest else ""))
    return "|".join(alts)


class _Lazy(dict):  # type: ignore[type-arg]
    """A per-rule table filled on first use: looking up a missing rule index calls ``fill(index)``,
    which stores that rule's entry (in this table and in its sibling tables). Compiling the
    alternations and analysing the patterns of all the rules took seconds at the first scan of a
    process; most scans run a few dozen rules. Filling twice from two threads stores equal values."""

    def __init__(self, fill: Any) -> None:
        super().__init__()
        self._fill = fill

    def __missing__(self, key: int) -> Any:
        self._fill(key)
        return dict.__getitem__(self, key)


@dataclass(slots=True)
class _Ev:
    """Evidence before it becomes a Finding (offsets into the scanned text)."""

    rule: Rule | None
    start: int
    end: int
    weight: float
    note: str = ""
    detail: str | None = None
    plain: bool = True  # found in the visible text (can be weakened by context rules)
    context: list[str] = field(default_factory=list)  # ids of context rules that weakened it


class Scanner:
    """Compiled rules plus the prefilter; create once (see :func:`get_scanner`), reuse freely.

    Args:
        rules: Rules from :func:`~toolbound._detect.packs.load_rules`.
        timeout: Seconds per pattern run before ``engine.timeout``.
        use_superset: Skip a rule whose RE2 superset finds nothing in its windows (superset.py;
            same findings, less time). False runs every hit rule's windows (tests compare the two).
    """

    def __init__(self, rules: Sequence[Rule], *, timeout: float = DEFAULT_TIMEOUT, use_superset: bool = True) -> None:
        self.rules: tuple[Rule, ...] = tuple(rules)
        self.timeout = timeout
        # Findings of short texts (at most SHORT_SCAN characters): a scan is a pure function of the
        # text, and the same statuses, labels and names come back in result after result. Emptied
        # when full; a result with an engine.timeout finding is never kept (timing is not the text).
        # With them, the text's prefilter hits (when ``scan_decoded`` would put them in a memo), so
        # that a text answered from here still gives the cross-field scan its hits.
        self._short: dict[str, tuple[tuple[Finding, ...], tuple[Encoded, ...], HitParts | None]] = {}
        self._pattern_rules = [i for i, r in enumerate(self.rules) if r.compiled]
        # A rule's patterns joined into one alternation: one pass over a window instead of one per
        # pattern (the regex module's per-call cost dominates on short windows). Compiled the first
        # time the rule runs (see _Lazy): a process that scans a few short texts compiles a few.
        flags = pattern_flags()

        def combine(i: int) -> None:
            pats = self.rules[i].patterns
            self._combined[i] = (self.rules[i].compiled[0] if len(pats) == 1 else
                                 regex.compile("|".join(f"(?:{p})" for p in pats), flags))

        self._combined: dict[int, Any] = _Lazy(combine)
        self._always = tuple(i for i in self._pattern_rules if not self.rules[i].prefilter)
        # The language gate (round 60; see langid.gate_allows): a rule whose languages are all
        # Latin-script added languages skips a text written in a known language that holds no
        # marker of its languages.
        gated = set(GATED_LANGUAGES)
        self._gate: dict[int, tuple[str, ...]] = {
            i: tuple(self.rules[i].languages) for i in self._pattern_rules
            if self.rules[i].languages and set(self.rules[i].languages) <= gated}
        # Per pattern, from one parse of it (needs.py's analyses share a small parse cache, so they
        # run pattern by pattern, all four for one pattern before the next):
        # - literals it cannot match without (required_literals): a window lacking them skips the
        #   pattern (a multi-pattern rule left with one pattern that can match runs that one alone);
        # - strings every match starts with (first_literals): a window with a few of them tries the
        #   pattern only at those offsets instead of searching every position;
        # - scripts every match holds a character of (required_scripts): a Chinese pattern never
        #   runs on a text without CJK characters.
        # Each analysis is made the first time the rule runs (see _Lazy), for all its patterns: read
        # from the file shipped beside the packs when it holds them for this code (analysis.py).
        self._needs: dict[int, tuple[Needs, ...]] = _Lazy(self._analyse)
        self._firsts: dict[int, tuple[tuple[str, ...] | None, ...]] = _Lazy(self._analyse)
        self._scripts: dict[int, tuple[Any, ...]] = _Lazy(self._analyse)
        # - the fewest characters a match spans (min_width): a shorter window cannot hold one.
        self._minw: dict[int, tuple[int, ...]] = _Lazy(self._analyse)
        self._minw_union: dict[tuple[int, tuple[int, ...]], int] = {}
        # The fewest characters any match of a rule spans: a shorter text (a status, a name, an id)
        # skips the rule before its windows are built (_find would find nothing in any of them).
        self._rule_minw: dict[int, int] = _Lazy(self._analyse)
        self._first_unions: dict[tuple[int, tuple[int, ...]], tuple[str, ...] | None] = {}
        self._unguarded: dict[tuple[int, tuple[int, ...]], Any] = {}
        self._split: dict[tuple[int, tuple[int, ...]], bool] = {}
        self._viable_cache: dict[tuple[int, frozenset[str]], tuple[int, ...]] = {}
        # Alternations of some of a rule's patterns (_run), by (rule, pattern indices).
        self._subsets: dict[tuple[int, tuple[int, ...]], Any] = {}
        self._builtins = {r.builtin: r for r in self.rules if r.builtin}
        # Per rule, an RE2 superset of its patterns (superset.py), compiled on first use: one linear
        # pass that proves a rule cannot match in its windows before they are searched one by one.
        # The patterns' analyses (needs.py) and RE2 sources, shipped beside the packs (analysis.py).
        self._analyses = PatternAnalyses(self.rules)
        self._superset: Superset | None = (
            Superset([r.patterns if r.compiled else () for r in self.rules], self._analyses.re2_source)
            if use_superset and SUPERSET else None)
        lit_rules: dict[str, set[int]] = {}
        req_rules: dict[str, set[int]] = {}
        word_rules: dict[str, set[int]] = {}  # whole-word requires literals (Rule.requires_words)
        # The prefilter runs on leet-normalised text (see fold.unleet), so literals are normalised too.
        for i in self._pattern_rules:
            for lit in self.rules[i].prefilter:
                lit_rules.setdefault(unleet(lit), set()).add(i)
            for lit in self.rules[i].requires:
                whole = self.rules[i].requires_words and lit.isascii() and lit[-1].isalnum()
                (word_rules if whole else req_rules).setdefault(unleet(lit), set()).add(i)
        for kw in _ROT13_KEYWORDS:
            lit_rules.setdefault(rot13(kw), set()).add(_ROT13)
        all_lits = set(lit_rules) | set(req_rules) | set(word_rules)
        # A trie match returns the longest literal on its path; every shorter literal that is a
        # prefix of it also hit, so each literal maps to the rules of all its literal prefixes.
        self._hit_rules: dict[str, tuple[int, ...]] = {}
        self._hit_req: dict[str, tuple[int, ...]] = {}
        # A whole-word literal holds when it is the hit literal itself and the text's next character
        # ends the word (checked per hit: _hit_word), or when it is a prefix of the hit literal that
        # a non-word character follows ("ma" inside the literal "ma carte": folded into _hit_req).
        self._hit_word: dict[str, tuple[int, ...]] = {}
        for lit in all_lits:
            acc: set[int] = set()
            req: set[int] = set()
            for k in range(1, len(lit) + 1):
                acc |= lit_rules.get(lit[:k], set())
                req |= req_rules.get(lit[:k], set())
                if k < len(lit) and not lit[k].isalnum():
                    req |= word_rules.get(lit[:k], set())
            self._hit_rules[lit] = tuple(sorted(acc))
            self._hit_req[lit] = tuple(sorted(req))
            self._hit_word[lit] = tuple(sorted(word_rules.get(lit, set()) - req))
        # Multilingual rules (several languages, one pattern per language): a non-ASCII literal
        # ("忽略", "игнорир") runs only the patterns whose source contains it verbatim; ASCII
        # literals, and literals found in no pattern, run them all.
        self._hit_pats: dict[tuple[str, int], tuple[int, ...] | None] = {}
        unleeted: dict[int, list[tuple[str, str]]] = {}  # rule -> (literal, its unleeted form)
        sources: dict[int, list[str]] = {}  # id(rule) -> its patterns as _pattern_indices reads them
        for lit in all_lits:
            if lit.isascii():
                continue
            for ri in self._hit_rules[lit]:
                if ri < 0 or len(self.rules[ri].compiled) < 2 or len(self.rules[ri].languages) < 2:
                    continue
                if ri not in unleeted:
                    unleeted[ri] = [(x, unleet(x)) for x in self.rules[ri].prefilter]
                own = [x for x, ux in unleeted[ri] if lit.startswith(ux)]
                pats: set[int] = set()
                for x in own:
                    js = _pattern_indices(self.rules[ri], x, sources)
                    if js is None:
                        pats = set(range(len(self.rules[ri].compiled)))
                        break
                    pats |= js
                self._hit_pats[(lit, ri)] = tuple(sorted(pats)) if pats else None
        # Four literal groups, so the hot pass runs on a one-byte-per-character ASCII string:
        #   A: ASCII literals starting with a letter or digit, word-anchored, on the ASCII view;
        #   B: other ASCII literals ("<|", "![", "@"), anywhere, on the ASCII view;
        #   C: other non-ASCII literals ("précédentes", "игнорир"), on the lower-cased text;
        #   D: CJK and Arabic literals (no spaces between words): overlapping lookahead matches.
        # The ASCII view is the lower-cased text with every non-ASCII character replaced by "?"
        # (same length) and leet digits read as letters, so "的AI" and "1gn0re" both hit.
        cjk_lits = [x for x in all_lits if _CJK.search(x)]
        rest = [x for x in all_lits if not _CJK.search(x)]
        a_lits = [x for x in rest if x.isascii() and x[0].isalnum()]
        b_lits = [x for x in rest if x.isascii() and not x[0].isalnum()]
        c_lits = [x for x in rest if not x.isascii()]
        # The ASCII view is ASCII, so re.ASCII changes no hit; it makes "\b" much cheaper to test.
        self._pf_a = re.compile(r"\b(?:" + _trie_regex(a_lits) + ")", re.ASCII) if a_lits else None
        self._pf_b = re.compile(_trie_regex(b_lits)) if b_lits else None
        self._pf_b_first = frozenset(x[0] for x in b_lits)
        c_word = [x for x in c_lits if x[0].isalnum()]
        c_other = [x for x in c_lits if not x[0].isalnum()]
        c_alts = ([r"\b(?:" + _trie_regex(c_word) + ")"] if c_word else []) + \
                 ([_trie_regex(c_other)] if c_other else [])
        self._pf_c = re.compile("|".join(c_alts)) if c_alts else None
        # CJK hits overlap, so they are lookahead matches; re tries a lookahead at every position.
        # "c(?=rest)|..." (one branch per first character, see _first_char_trie) finds the same
        # offsets with re skipping to the characters that start a literal; each literal is then read
        # at its offset with the lookahead pattern itself (tests/test_detect_equivalents.py).
        self._pf_cjk = re.compile("(?=(" + _trie_regex(cjk_lits) + "))") if cjk_lits else None
        self._pf_cjk_starts = re.compile(_first_char_trie(cjk_lits)) if cjk_lits else None
        self.max_window = max((r.window for r in self.rules), default=300)
        self._inner = _inner_offsets(all_lits)
        # joined_hits reuses the hits of a result's strings for their join only if no hit can span
        # the newline that joins them.
        self._newline_lits = any("\n" in x for x in all_lits)

    def _analyse(self, i: int) -> None:
        """The analyses of rule ``i``'s patterns (see ``__init__``), pattern by pattern."""
        per = [self._analyses.get(p) for p in self.rules[i].patterns]
        self._needs[i] = tuple(_check_order(x[0]) for x in per)
        self._firsts[i] = tuple(x[1] for x in per)
        self._scripts[i] = tuple(x[2] for x in per)
        self._minw[i] = minw = tuple(x[3] for x in per)
        self._rule_minw[i] = min(minw, default=0)

    # -- public ---------------------------------------------------------------------------------

    def scan(self, text: str, *, across: Sequence[int] | None = None,
             hits: list[tuple[int, int, str]] | None = None, pieces_plain: bool = False) -> list[Finding]:
        """All findings in ``text``, offsets into ``text``, sorted by position (context excluded).

        ``across``: sorted offsets (field separators of a joined text). When given, the caller keeps
        only findings that contain one of them, so a rule runs only in windows that hold one; every
        such finding is still found (a match lies inside its window). Context rules and encoded
        runs are scanned as usual, so weakening and decoding see what they always see.
        ``hits``: with ``across``, the prefilter's hits in ``text`` when the caller has them
        (:meth:`joined_hits`); used only when folding leaves ``text`` as it is.
        ``pieces_plain``: with ``across``, the caller's word that no piece between the separators holds
        an encoded run (its own scan decoded none). Then, when folding leaves ``text`` as it is and
        no separator follows a long token (:func:`_may_join_encoded`), the search for encoded runs
        is skipped: a run inside one piece would have been found by that piece's scan, and only
        base64 wrapped over lines can reach across a separator.
        """
        if across is not None:
            return self._findings(self._scan(text, 0, across, hits=hits, pieces_plain=pieces_plain))
        return self.scan_decoded(text)[0]

    def scan_decoded(self, text: str, *, memo: dict[str, HitParts] | None = None
                     ) -> tuple[list[Finding], tuple[Encoded, ...]]:
        """:meth:`scan`, plus the runs the engine decoded from ``text`` at the top level (base64,
        hex, URL-encoding, HTML character references, JSON ``\\u`` and ``\\x`` escapes, rot13 windows,
        Unicode tag characters, letter-spaced sentences; offsets into ``text``), so that the scorer
        can read the decoded texts too (``score.decoded_score``).

        ``memo``: when given, an ASCII ``text`` that folding leaves as it is gets its prefilter hits
        stored there (``memo[text]``), for :meth:`joined_hits` to reuse in the cross-field scan of
        the same result."""
        short = len(text) <= SHORT_SCAN
        if short:
            hit = self._short.get(text)
            if hit is not None:
                if memo is not None and hit[2] is not None:
                    memo[text] = hit[2]
                return list(hit[0]), hit[1]
            if memo is None:
                memo = {}  # the hits are kept with the findings (a memo costs the scan nothing)
        runs: list[Encoded] = []
        out = self._findings(self._scan(text, 0, decoded=runs, memo=memo))
        if short and not any(f.rule_id == TIMEOUT_RULE_ID for f in out):
            if len(self._short) >= SHORT_SCAN_LIMIT:
                self._short.clear()
            self._short[text] = (tuple(out), tuple(runs), memo.get(text))  # type: ignore[union-attr]
        return out, tuple(runs)

    def prefilter_hits(self, text: str) -> bool:
        """Whether any literal of any rule occurs in ``text``."""
        _, asc, low = self._views(text)
        return bool(self._prefilter(asc, low))

    # -- internals ------------------------------------------------------------------------------

    def joined_hits(self, text: str, pieces: Sequence[tuple[int, int, HitParts | None]]
                    ) -> list[tuple[int, int, str]] | None:
        """The prefilter's hits in ``text``, an ASCII join of pieces separated by single newlines,
        assembled from hits already found in its pieces: exactly what :meth:`_prefilter` gives
        for ``text`` (None: the pieces cannot be reused, the caller scans as usual).

        ``pieces``: ``(start, end, parts)`` in order, ``text[start:end]`` a piece and
        ``text[end]`` the newline before the next; ``parts`` its :class:`HitParts` (from
        ``scan_decoded(memo=...)``), or None where it is unknown (a piece cut by the window, a
        short string answered from the cache): runs of unknown pieces are read here. No literal
        holds a newline (checked when the scanner is built), so no hit spans one, and a piece starts
        after a newline as a text starts: the word anchor reads both alike. The hits are ordered as
        ``_prefilter`` orders them (every word-anchored hit, then the literals inside them, then
        the others and theirs), since the windows of a rule are built in that order.
        """
        if self._newline_lits or not text.isascii():
            return None
        chunks: list[tuple[int, HitParts]] = []  # (offset in text, hits of the piece there)
        todo_start = -1  # start of a run of unknown pieces, read here as one text
        todo_end = 0
        for start, end, parts in pieces:
            if parts is None:
                if todo_start < 0:
                    todo_start = start
                todo_end = end
                continue
            if todo_start >= 0:
                chunks.append((todo_start, self._ascii_parts(unleet(text[todo_start:todo_end].lower()))))
                todo_start = -1
            if parts[0] or parts[1] or parts[2] or parts[3]:
                chunks.append((start, parts))  # most pieces (ids, dates, labels) hold no hit
        if todo_start >= 0:
            chunks.append((todo_start, self._ascii_parts(unleet(text[todo_start:todo_end].lower()))))
        out: list[tuple[int, int, str]] = []
        for g in range(4):
            for shift, parts in chunks:
                part = parts[g]
                if not part:
                    continue
                if shift:
                    out += [(s + shift, e + shift, lit) for s, e, lit in part]
                else:
                    out += part
        return out

    def _ascii_parts(self, asc: str) -> HitParts:
        """The prefilter's hits in ASCII view ``asc``: word-anchored hits, literals inside them,
        other hits, literals inside those (``_prefilter`` gives them joined in this order)."""
        a_hits: list[tuple[int, int, str]] = []
        a_inner: list[tuple[int, int, str]] = []
        b_hits: list[tuple[int, int, str]] = []
        b_inner: list[tuple[int, int, str]] = []
        if self._pf_a is not None:
            a_hits, a_inner = _trie_parts(self._pf_a, asc, self._inner)
        if self._pf_b is not None and _has_any(asc, self._pf_b_first):
            b_hits, b_inner = _trie_parts(self._pf_b, asc, self._inner)
        return a_hits, a_inner, b_hits, b_inner

    def _prefilter(self, asc: str, low: str | None) -> list[tuple[int, int, str]]:
        """Literal hits ``(start, end, literal)``.

        ``asc`` is the ASCII view (see ``__init__``); ``low`` the lower-cased text when it is not
        ASCII (None otherwise).
        """
        a_hits, a_inner, b_hits, b_inner = self._ascii_parts(asc)
        out = a_hits + a_inner + b_hits + b_inner
        if low is not None:
            if self._pf_c is not None:
                out.extend(_trie_hits(self._pf_c, low, self._inner))
            if self._pf_cjk is not None and _CJK.search(low):
                at = self._pf_cjk.match
                for m in self._pf_cjk_starts.finditer(low):  # type: ignore[union-attr]
                    h = at(low, m.start())
                    out.append((h.start(1), h.end(1), h.group(1)))  # type: ignore[union-attr]
        return out

    def _first_union(self, ri: int, idxs: tuple[int, ...]) -> tuple[str, ...] | None:
        """The strings every match of the alternation of rule ``ri``'s patterns ``idxs`` starts with."""
        key = (ri, idxs)
        try:
            return self._first_unions[key]
        except KeyError:
            pass
        fs = self._firsts[ri]
        out: tuple[str, ...] | None = None
        if all(fs[j] is not None for j in idxs):
            union = sorted({x for j in idxs for x in fs[j]})  # type: ignore[union-attr]
            out = tuple(union) if len(union) <= MAX_FIRSTS else None
        self._first_unions[key] = out
        return out

    def _viable(self, ri: int, present: frozenset[str]) -> tuple[int, ...]:
        """Rule ``ri``'s patterns that a text holding ``present`` scripts can match (indices; empty
        when there are none). Their alternation is compiled by :meth:`_run`, only once a rule has
        passed the cheaper checks (its RE2 superset most of all)."""
        key = (ri, present)
        try:
            return self._viable_cache[key]
        except KeyError:
            pass
        self._viable_cache[key] = out = tuple(
            j for j, need in enumerate(self._scripts[ri]) if scripts_satisfied(need, present))
        return out

    def _run(self, ri: int, idxs: tuple[int, ...]) -> Any:
        """The alternation of rule ``ri``'s patterns ``idxs`` (compiled on first use). Compiling is
        most of what a rule costs the first time it runs in a process (about 7 ms a rule), so it
        waits until the rule's superset has found something; on benign text most rules a text hits
        never get that far (session 45)."""
        rule = self.rules[ri]
        if len(idxs) == len(rule.compiled):
            return self._combined[ri]
        if len(idxs) == 1:
            return rule.compiled[idxs[0]]
        key = (ri, idxs)
        try:
            return self._subsets[key]
        except KeyError:
            pass
        src = "|".join(f"(?:{rule.patterns[j]})" for j in idxs)
        self._subsets[key] = out = regex.compile(src, pattern_flags())
        return out

    def _views(self, ft: str) -> tuple[str, str, str | None]:
        """``(lower-cased text, ASCII view, lower-cased text or None when ASCII)``."""
        low = ft.lower()
        if low.isascii():
            return low, unleet(low), None
        asc = low.encode("ascii", "replace").replace(b"11", b"ll").translate(_LEET_BYTES).decode("ascii")
        return low, asc, low

    def _match(self, ft: str, *, allow_rot13: bool, across: Sequence[int] | None = None, raw: str | None = None,
               lits: list[tuple[int, int, str]] | None = None, memo: dict[str, HitParts] | None = None
               ) -> tuple[dict[int, list[tuple[int, int]]], list[tuple[int, int, str]], list[tuple[int, int]],
                          list[tuple[int, int, Rule]], set[tuple[int, int, int]]]:
        """Run the rules over folded text ``ft``.

        Returns ``(matches per rule index, keyword hits (start, end, literal), rot13 hit spans,
        timeouts, leet matches)``, offsets in ``ft``; leet matches are ``(rule index, start, end)``
        found only through leetspeak.
        ``raw`` is the text before folding, when there is one: the language gate also reads its
        letters (folding reads Turkish ı as i). ``lits``: the prefilter's hits in ``ft`` when the
        caller has them; ``memo``: where an ASCII ``ft``'s hits are stored (see ``scan_decoded``).
        """
        if lits is None:
            low, asc, low_if_unicode = self._views(ft)
        else:
            low = ft.lower()  # the hits are given: the ASCII view is for finding them
        chk = check_view(ft, low)
        seen = _presence(chk)
        leet_views: dict[tuple[int, int], tuple[str, str | None, Presence | None, Utf8 | None] | None] = {}
        present = text_scripts(ft)
        leet = _has_any(low, _LEET_DIGITS)
        rot: list[tuple[int, int]] = []
        hit_rules = self._hit_rules
        hit_req = self._hit_req
        hit_word = self._hit_word
        n_low = len(low)
        if lits is not None:
            found_lits = lits
        elif memo is not None and low_if_unicode is None:
            parts = memo[ft] = self._ascii_parts(asc)
            found_lits = parts[0] + parts[1] + parts[2] + parts[3]
        else:
            found_lits = self._prefilter(asc, low_if_unicode)
        # Hits grouped by literal: a literal repeated down a document costs one lookup of its rules.
        by_lit: dict[str, list[tuple[int, int, str]]] = {}
        for h in found_lits:
            occ = by_lit.get(h[2])
            if occ is None:
                by_lit[h[2]] = [h]
            else:
                occ.append(h)
        # Each rule's literals and required literals, in the order the rules are first hit. The
        # per-hit work (spans, required positions, leet checks) is done below only for the rules
        # that pass the cheaper per-rule checks: most rules a text hits go no further.
        order: list[int] = []
        rule_lits: dict[int, list[str]] = {}
        req_lits: dict[int, list[tuple[str, bool]]] = {}
        for lit, occ in by_lit.items():
            for ri in hit_req[lit]:
                rl = req_lits.get(ri)
                if rl is None:
                    req_lits[ri] = [(lit, False)]
                else:
                    rl.append((lit, False))
            for ri in hit_word[lit]:  # rules that hold this literal only as a whole word
                rl = req_lits.get(ri)
                if rl is None:
                    req_lits[ri] = [(lit, True)]
                else:
                    rl.append((lit, True))
            for ri in hit_rules[lit]:
                if ri == _ROT13:
                    if allow_rot13:
                        rot.extend((s, e) for s, e, _ in occ)
                    continue
                lst = rule_lits.get(ri)
                if lst is None:
                    rule_lits[ri] = [lit]
                    order.append(ri)
                else:
                    lst.append(lit)
        rot.sort()
        n = len(ft)
        always = self._always
        order.extend(ri for ri in always if ri not in rule_lits)
        leet_lit: dict[str, bool] = {}  # whether a literal appears (somewhere) only through leetspeak
        gate = self._gate
        words: frozenset[str] | None = None
        raw_low: str | None = None
        allowed: dict[tuple[str, ...], bool] = {}  # one answer per language set and text
        out: dict[int, list[tuple[int, int]]] = {}
        timeouts: list[tuple[int, int, Rule]] = []
        leet_found: list[tuple[int, int, int]] = []
        rule_minw = self._rule_minw
        superset = self._superset
        # The RE2 skip reads ASCII and nearly-ASCII texts (superset.utf8): on the others its automata
        # grow far more states for little gain (peak memory over the corpus 761 MB when they read
        # every text; the engine alone needs about 280 MB there). Encoded when first asked.
        enc: Utf8 | None = None
        data: bytes | None = None
        encoded = superset is None
        for ri in order:
            if n < rule_minw[ri]:
                continue  # the text is shorter than any match of this rule
            rule = self.rules[ri]
            rpos: list[int] | None = None
            if rule.requires:
                rl = req_lits.get(ri)
                if not rl:
                    continue
                rpos = []
                for lit, whole in rl:
                    if whole:
                        rpos += [h[0] for h in by_lit[lit] if h[1] >= n_low or not low[h[1]].isalnum()]
                    else:
                        rpos += [h[0] for h in by_lit[lit]]
                if not rpos:
                    continue
                rpos.sort()
            viable = self._viable(ri, present)
            if not viable:
                continue  # every pattern needs a script the text does not hold
            lits_r = rule_lits.get(ri)
            spans: list[tuple[int, int, str]]
            if ri in always:
                spans = [(0, n, "")]
            elif len(lits_r) == 1:  # type: ignore[arg-type]
                spans = by_lit[lits_r[0]]  # type: ignore[index]
            else:
                spans = sorted(h for lit in lits_r for h in by_lit[lit])  # type: ignore[union-attr]
            with_leet = False
            if leet and lits_r:
                for lit in lits_r:
                    is_leet = leet_lit.get(lit)
                    if is_leet is None:
                        # The keyword appears only through leetspeak: its rules also run on the
                        # unleeted view.
                        is_leet = leet_lit[lit] = lit.isascii() and any(low[s:e] != lit for s, e, _ in by_lit[lit])
                    if is_leet:
                        with_leet = True
                        break
            if not encoded:
                enc = utf8(ft)
                data = None if enc is None else enc.data
                encoded = True
            cover = across if across is not None and rule.family != CONTEXT_FAMILY else None
            found: list[tuple[int, int]] = []
            per_window = False
            plain = True  # whether the windows of the text itself can hold a match
            if data is not None:
                # One RE2 pass over the stretch that holds all the rule's windows (superset.py): where
                # its superset finds nothing, none of its patterns can match in any window. A rule that
                # also runs on leet views still reads those (other texts, each asked on its own
                # below). A long stretch (a long text with hits far apart) is not read whole: each
                # window asks on its own before it is searched.
                lo = max(0, min(map(_START, spans)) - rule.window)
                hi = min(n, max(map(_END, spans)) + rule.window)
                per_window = hi - lo > SUPERSET_STRETCH
                if not per_window and not superset.possible(  # type: ignore[union-attr]
                        ri, data, enc.at(lo), enc.at(hi)):  # type: ignore[union-attr]
                    if not with_leet:
                        continue
                    plain = False
            # The language gate last: its word list of the text is built only for a rule that got
            # this far (the order of these checks changes no finding, only what they cost).
            if ri in gate:
                ok = allowed.get(gate[ri])
                if ok is None:
                    if words is None:
                        words = text_words(low)
                        if raw is not None and raw is not ft and not raw.isascii():
                            raw_low = raw.lower()
                    ok = allowed[gate[ri]] = gate_allows(gate[ri], low, words, raw_low)
                if not ok:
                    continue  # a text in a known language, with no word or letter of the rule's
            groups: list[tuple[Any, list[tuple[int, int, str]], tuple[int, ...]]]
            if len(rule.compiled) == 1:
                groups = [(self._run(ri, viable), spans, viable)]
            else:
                per: dict[int, list[tuple[int, int, str]]] = {}
                every: list[tuple[int, int, str]] = []
                for sp in spans:
                    js = self._hit_pats.get((sp[2], ri))
                    if js is None:
                        every.append(sp)
                    else:
                        for j in js:
                            if j in viable:
                                per.setdefault(j, []).append(sp)
                groups = [(self._run(ri, viable), every, viable)] if every else []
                groups += [(rule.compiled[j], per[j], (j,)) for j in sorted(per)]
            needs = self._needs[ri]
            for pat, pspans, idxs in groups:
                has_needs = any(needs[j] for j in idxs)
                check = chk is not None and has_needs
                for a, b in _windows(pspans, rule.window, n, rpos, cover):
                    here = plain and not (per_window and not superset.possible(  # type: ignore[union-attr]
                        ri, data, enc.at(a), enc.at(b)))  # type: ignore[arg-type,union-attr]
                    if not here and not with_leet:
                        continue
                    try:
                        if here:
                            found.extend(self._find(ri, pat, idxs, ft, a, b, chk, check, seen))
                        if with_leet:
                            # The same window with leet digits read as letters ("1gn0re"), checked
                            # and anchored on its own view like any window. A window without leet
                            # digits reads the same, and a match there counts only where it differs.
                            # Rules sharing a window share its view and literal cache.
                            if (a, b) in leet_views:
                                lv = leet_views[(a, b)]
                            else:
                                seg = ft[a:b]
                                view = unleet(seg)
                                lv = leet_views[(a, b)] = None if view == seg else _leet_view(view)
                            if lv is None:
                                continue
                            view, vchk, vseen, venc = lv
                            if venc is not None and superset is not None and not superset.possible(
                                    ri, venc.data, 0, len(venc.data)):
                                continue  # the rule's superset finds nothing in the view either
                            for ms, me in self._find(ri, pat, idxs, view, 0, len(view), vchk,
                                                     vchk is not None and has_needs, vseen):
                                if ft[ms + a:me + a] != view[ms:me]:
                                    found.append((ms + a, me + a))
                                    leet_found.append((ri, ms + a, me + a))
                    except TimeoutError:
                        timeouts.append((a, b, rule))
            if found:
                out[ri] = _disjoint(found)[:MAX_FINDINGS_PER_RULE]
        return out, found_lits, rot, timeouts, set(leet_found)

    def _find(self, ri: int, pat: Any, idxs: tuple[int, ...], text: str, a: int, b: int, chk: str | None,
              check: bool, seen: Presence | None = None) -> list[tuple[int, int]]:
        """Non-empty matches of rule ``ri``'s patterns ``idxs`` (alternation ``pat``) in ``text[a:b]``,
        as finditer would give them. ``chk`` is the check view of ``text`` (None: search plainly);
        with ``check``, patterns whose literals are absent from the window are skipped (``seen``:
        the caller's cache of the literals present in ``chk``, see needs.Presence)."""
        key = (ri, idxs)
        mw = self._minw_union.get(key)
        if mw is None:
            mw = self._minw_union[key] = min(self._minw[ri][j] for j in idxs)
        if b - a < mw:
            return []  # the window is shorter than any match of these patterns
        run = pat
        sel = run_idxs = idxs
        if check:
            needs = self._needs[ri]
            ok = [j for j in idxs if satisfied(needs[j], chk, a, b, seen)]  # type: ignore[arg-type]
            if not ok:
                return []  # no pattern can match in this window
            if len(ok) < len(idxs):
                # The other patterns cannot match here: one left runs alone; with several, the
                # alternation runs as is (its other branches match nothing).
                sel = tuple(ok)
                if len(ok) == 1:
                    run = self.rules[ri].compiled[ok[0]]
                    run_idxs = sel
        starts = None
        if chk is not None:
            firsts = self._first_union(ri, sel)
            if firsts is not None:
                starts = start_positions(chk, firsts, a, b, MAX_ANCHORED)
        out: list[tuple[int, int]] = []
        if starts is not None:
            # Every match starts with one of ``firsts``: try the pattern only there, left to
            # right, resuming after each match (what finditer would find). Patterns that all start
            # with the same lookbehinds (guards that may look hundreds of characters back) are first
            # tried without them: where that fails, the pattern cannot match either.
            pos = a
            bare = self._unguarded_run(ri, run_idxs)
            for i in starts:
                if i < pos:
                    continue
                if bare is not None and bare.match(text, i, b, timeout=self.timeout) is None:
                    continue
                m = run.match(text, i, b, timeout=self.timeout)
                if m is not None and m.end() > m.start():
                    out.append(m.span())
                    pos = m.end()
        else:
            cand = self._unguarded_run(ri, run_idxs)
            if cand is None and self._split_guarded(ri, run_idxs):
                # Some of the patterns start with a lookbehind and others do not, so the alternation
                # has no unguarded form and searching it would test each lookbehind (hundreds of
                # characters back) at every position: on a 1.3 KB window of one e-mail that took over
                # 0.5 s and timed out (session 49). Each pattern alone is searched without its
                # lookbehinds instead, and their matches are merged as finditer over the alternation
                # would give them: the leftmost start first, the earlier pattern at equal starts,
                # the next match after the end of the last (no pattern matches the empty string).
                nxt = {j: self._leftmost(ri, j, text, a, b) for j in run_idxs}
                pos = a
                while True:
                    best = None
                    for j in run_idxs:
                        sp = nxt[j]
                        if sp is not None and sp[0] < pos:
                            sp = nxt[j] = self._leftmost(ri, j, text, pos, b)
                        if sp is not None and (best is None or sp[0] < best[0]):
                            best = sp
                    if best is None:
                        break
                    out.append(best)
                    pos = best[1]
            elif cand is None:
                for m in run.finditer(text, a, b, timeout=self.timeout):
                    if m.end() > m.start():
                        out.append(m.span())
            else:
                # The patterns start with a lookbehind that searching would test at every position:
                # search without it, and try the pattern itself at each place that search finds
                # (every match of the pattern starts at such a place; leftmost first, as finditer).
                pos = a
                while (sp := self._first_match(run, cand, text, pos, b)) is not None:
                    out.append(sp)
                    pos = sp[1]
        return out

    def _split_guarded(self, ri: int, idxs: tuple[int, ...]) -> bool:
        """Whether rule ``ri``'s patterns ``idxs`` are searched one by one (see :meth:`_find`): several
        patterns that share no leading lookbehind, at least one of them starting with one, and none
        that can match the empty string."""
        key = (ri, idxs)
        try:
            return self._split[key]
        except KeyError:
            pass
        out = (len(idxs) > 1 and all(self._minw[ri][j] > 0 for j in idxs)
               and any(self._unguarded_run(ri, (j,)) is not None for j in idxs))
        self._split[key] = out
        return out

    def _leftmost(self, ri: int, j: int, text: str, pos: int, b: int) -> tuple[int, int] | None:
        """The span of the leftmost match of rule ``ri``'s pattern ``j`` in ``text[pos:b]`` (None: no
        match), searched without the pattern's leading lookbehinds where it has any."""
        run = self.rules[ri].compiled[j]
        cand = self._unguarded_run(ri, (j,))
        if cand is None:
            m = run.search(text, pos, b, timeout=self.timeout)
            return None if m is None else m.span()
        return self._first_match(run, cand, text, pos, b)

    def _first_match(self, run: Any, cand: Any, text: str, pos: int, b: int) -> tuple[int, int] | None:
        """The span of the leftmost non-empty match of ``run`` in ``text[pos:b]`` (None: none), tried
        only where ``cand`` (``run`` without its leading lookbehinds) is found."""
        while pos < b:
            c = cand.search(text, pos, b, timeout=self.timeout)
            if c is None:
                return None
            m = run.match(text, c.start(), b, timeout=self.timeout)
            if m is not None and m.end() > m.start():
                return m.span()
            pos = c.start() + 1
        return None

    def _unguarded_run(self, ri: int, idxs: tuple[int, ...]) -> Any:
        """The alternation of rule ``ri``'s patterns ``idxs`` without the lookbehinds they all start
        with (None: they share no leading lookbehind)."""
        key = (ri, idxs)
        try:
            return self._unguarded[key]
        except KeyError:
            pass
        pats = [self.rules[ri].patterns[j] for j in idxs]
        guard = _leading_lookbehinds(pats)
        out = None
        if guard:
            rest = [p[len(guard):] for p in pats]
            out = regex.compile(rest[0] if len(rest) == 1 else "|".join(f"(?:{x})" for x in rest), pattern_flags())
        self._unguarded[key] = out
        return out

    def _scan(self, text: str, depth: int, across: Sequence[int] | None = None,
              decoded: list[Encoded] | None = None, hits: list[tuple[int, int, str]] | None = None,
              memo: dict[str, HitParts] | None = None, pieces_plain: bool = False) -> list[_Ev]:
        """Evidence in ``text`` (offsets into it); ``decoded`` (given at the top level) receives the
        runs decoded from it (see :meth:`scan_decoded`); ``hits`` and ``memo`` as in :meth:`scan`
        and :meth:`scan_decoded`, for a ``text`` that folding leaves as it is."""
        f = fold(text)
        ft = f.text
        if ft != text:
            across = hits = memo = None  # offsets of the folded text differ: scan everything
        matches, kw, rot, timeouts, leet = self._match(ft, allow_rot13=depth < MAX_DEPTH, across=across, raw=text,
                                                       lits=hits, memo=memo)
        span = f.map.span
        evs: list[_Ev] = []
        for ri, spans in matches.items():
            rule = self.rules[ri]
            for s, e in spans:
                a, b = span(s, e)
                if leet and any(li == ri and ls < e and s < le for li, ls, le in leet):
                    evs.append(_Ev(rule, a, b, rule.weight, note=" (after undoing letter obfuscation)",
                                   detail="deobfuscated", plain=False))
                else:
                    evs.append(_Ev(rule, a, b, rule.weight))
        for a, b, rule in timeouts:
            oa, ob = span(a, b)
            evs.append(_Ev(None, oa, ob, TIMEOUT_WEIGHT, detail=rule.id))
        if kw and (f.invisibles or f.homoglyphs):
            self._keyword_evasions(f, kw, evs)
        if depth == 0:
            self._deobfuscated(ft, f, evs)
        is_code: bool | None = None  # whether the text is source code (asked at most once, lazily)
        encoded: list[Encoded] = []
        if depth < MAX_DEPTH:
            encoded = [Encoded(a, b, "tags", dec) for a, b, dec in f.tags]
            tag_rule = self._builtins.get("unicode_tags")
            if tag_rule is not None:
                for a, b, dec in f.tags:
                    # Emoji flag sequences (England, Scotland, Wales) use a few tag letters legitimately.
                    if len(dec) >= 6 and not (a > 0 and text[a - 1] == "\U0001f3f4"):
                        evs.append(_Ev(tag_rule, a, b, tag_rule.weight, plain=False))
            # (across is None here when folding changed the text)
            plain_join = pieces_plain and across is not None and not _may_join_encoded(ft, across)
            for enc in (() if plain_join else find_encoded(ft)):
                a, b = span(enc.start, enc.end)
                if enc.kind == "joined" and _in_string_literal(text, a + enc.lead):
                    # an identifier quoted in source code is test data or configuration (as
                    # context.code_literal reads plain evidence there): not read as words
                    if is_code is None:
                        is_code = _CODE_MARKERS.search(text) is not None
                    if is_code:
                        continue
                encoded.append(replace(enc, start=a, end=b))  # offsets into the text, not the folded copy
            if rot:
                encoded.extend(self._rot13_windows(ft, f, rot))
            for enc in encoded:
                self._decoded(enc, depth, evs)
        ctx = [e for e in evs if e.rule is not None and e.rule.family == CONTEXT_FAMILY]
        if ctx and any(enc.kind in WEAKENED_KINDS for enc in encoded):
            encoded = _weaken_disguised(encoded, evs, ctx)
        if decoded is not None:
            decoded.extend(encoded)
        if ctx:
            evs = [e for e in evs if e.rule is None or e.rule.family != CONTEXT_FAMILY]
            _dampen(evs, ctx)
        quote_rule = self._builtins.get("quoted_example")
        code_rule = self._builtins.get("code_literal")
        for e in evs:
            if not e.plain or e.rule is None:
                continue
            if quote_rule is not None and _in_prose_quotes(text, e.start, e.end):
                e.weight *= 1.0 - quote_rule.weight
                e.note += " (weakened: quoted as an example)"
                e.context.append(quote_rule.id)
            elif code_rule is not None and _in_string_literal(text, e.start):
                if is_code is None:
                    is_code = _CODE_MARKERS.search(text) is not None
                if is_code:
                    e.weight *= 1.0 - code_rule.weight
                    e.note += " (weakened: inside a string literal in source code)"
                    e.context.append(code_rule.id)
        return evs

    def explain(self, text: str) -> tuple[list[Finding], set[str]]:
        """Findings plus the ids of the context rules that weakened any of them (for ``rules check``)."""
        evs = self._scan(text, 0)
        ids = {c for e in evs for c in e.context}
        return self._findings(evs), ids

    def _keyword_evasions(self, f: Folded, kw: list[tuple[int, int, str]], evs: list[_Ev]) -> None:
        """Builtins: a prefilter keyword that was split by invisible characters or spelt with lookalikes."""
        todo = [(rule, spans) for name, spans in (("invisible_in_word", f.invisibles), ("homoglyph_word", f.homoglyphs))
                if spans and (rule := self._builtins.get(name)) is not None]
        if not todo or not kw:
            return
        orig_kw = [f.map.span(h[0], h[1]) for h in kw]
        index = SpanIndex(orig_kw)  # a text of many lookalike words has as many keyword hits
        for rule, spans in todo:
            for a, b in spans:
                # The first keyword in hit order that meets the word, as a scan of the list finds it.
                k = min((k for k in index.candidates(a, b) if a <= orig_kw[k][1] and orig_kw[k][0] <= b),
                        default=None)
                if k is not None:
                    ka, kb = orig_kw[k]
                    evs.append(_Ev(rule, min(a, ka), max(b, kb), rule.weight, plain=False))

    def _deobfuscated(self, ft: str, f: Folded, evs: list[_Ev]) -> None:
        """Rescan windows around letter-padded runs ("i g n o r e") that spell a keyword."""
        runs = [r for r in spaced_runs(ft) if self.prefilter_hits(r[2])]
        if not runs:
            return
        n, w = len(ft), self.max_window
        windows: list[list[int]] = []
        for s, e, _ in runs:
            a, b = max(0, s - w), min(n, e + w)
            if windows and a <= windows[-1][1]:
                windows[-1][1] = max(windows[-1][1], b)
            else:
                windows.append([a, b])
        for a, b in windows:
            edits = [r for r in runs if r[0] >= a and r[1] <= b]
            dtext, dmap = apply_edits(ft, edits, a, b)
            matches, _, _, _, _ = self._match(dtext, allow_rot13=False)
            for ri, spans in matches.items():
                rule = self.rules[ri]
                for s, e in spans:
                    fs, fe = dmap.span(s, e)
                    # Only matches that use a de-padded run are new evidence.
                    if not any(r[0] < fe and fs < r[1] for r in edits):
                        continue
                    oa, ob = f.map.span(fs, fe)
                    if any(ev.rule is rule and ev.start < ob and oa < ev.end for ev in evs):
                        continue
                    evs.append(_Ev(rule, oa, ob, rule.weight, note=" (after undoing letter obfuscation)",
                                   detail="deobfuscated", plain=False))

    def _rot13_windows(self, ft: str, f: Folded, rot: list[tuple[int, int]]) -> list[Encoded]:
        n, w = len(ft), self.max_window
        out: list[Encoded] = []
        last = -1
        for s, e in rot:
            if s < last:
                continue
            a, b = max(0, s - w), min(n, e + w)
            last = b
            oa, ob = f.map.span(a, b)
            out.append(Encoded(oa, ob, "rot13", rot13(ft[a:b])))
        return out

    def _decoded(self, enc: Encoded, depth: int, evs: list[_Ev]) -> None:
        sub = [e for e in self._scan(enc.decoded, depth + 1) if e.rule is not None]
        if not sub:
            return
        for e in sub:
            evs.append(_Ev(e.rule, enc.start, enc.end, e.weight,
                           note=f" (inside {enc.kind}-encoded text){e.note}", detail=enc.kind, plain=False))
        rule = self._builtins.get("encoded_instruction") if enc.hides else None
        if rule is not None and any(e.rule is not None and e.rule.builtin != "encoded_instruction" for e in sub):
            evs.append(_Ev(rule, enc.start, enc.end, rule.weight, note=f" ({enc.kind})", detail=enc.kind,
                           plain=False))

    def _findings(self, evs: list[_Ev]) -> list[Finding]:
        out: list[Finding] = []
        seen: set[tuple[str, int, int]] = set()
        for e in evs:
            if e.rule is None:
                key = (TIMEOUT_RULE_ID, e.start, e.end)
                if key in seen:
                    continue
                seen.add(key)
                out.append(Finding(TIMEOUT_RULE_ID, "engine", "medium", e.start, e.end,
                                   "A rule timed out on this text, so the text was not fully checked by it.",
                                   score=TIMEOUT_WEIGHT, detail=e.detail))
                continue
            key = (e.rule.id, e.start, e.end)
            if key in seen:
                continue
            seen.add(key)
            out.append(Finding(e.rule.id, e.rule.family, e.rule.severity, e.start, e.end,  # type: ignore[arg-type]
                               e.rule.reason + e.note, score=round(e.weight, 4), detail=e.detail))
        out.sort(key=lambda x: (x.start, -x.end, x.rule_id))
        return out


def _presence(chk: str | None) -> Presence | None:
    """The literal cache of check view ``chk`` (None: no check view, or too short to pay off)."""
    return Presence(chk) if chk is not None and len(chk) >= PRESENCE_MIN else None


def _leet_view(view: str) -> tuple[str, str | None, Presence | None, Utf8 | None]:
    """A window read with leet digits as letters: the view, its check view and their cache, and the
    view encoded for the rules' RE2 supersets (None when ``superset.utf8`` does not read it)."""
    vchk = check_view(view)
    return view, vchk, _presence(vchk), utf8(view)


def _check_order(needs: Needs) -> Needs:
    """The same groups (every one must be present, so their order changes no answer), in an order
    that fails soon on ordinary text: groups without a literal of three characters or fewer first
    (a group holding "the" or "to" is nearly always present), and fewer literals first (a group is
    known absent only after each of its literals was looked for)."""
    return tuple(sorted(needs, key=lambda g: (min(len(x) for x in g) <= 3, len(g))))


def _leading_lookbehind(src: str) -> str | None:
    """The lookbehind group ``(?<!...)`` or ``(?<=...)`` that ``src`` starts with, as written (None:
    it starts with something else). Escapes and character classes inside it are skipped."""
    if not (src.startswith("(?<!") or src.startswith("(?<=")):
        return None
    depth = 0
    i = 0
    n = len(src)
    while i < n:
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            j = i + 1
            if j < n and src[j] == "^":
                j += 1
            if j < n and src[j] == "]":
                j += 1
            while j < n and src[j] != "]":
                j += 2 if src[j] == "\\" else 1
            i = j + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return src[:i + 1]
        i += 1
    return None


def _leading_lookbehinds(pats: Sequence[str]) -> str:
    """The run of lookbehind groups that every pattern of ``pats`` starts with, as written ("" when
    they share none). A run is read whole: testing a chain of lookbehinds (one of them may look back
    over several words) at every position of a window is what made such patterns slow to search."""
    guard = ""
    while True:
        nxt = _leading_lookbehind(pats[0][len(guard):])
        if nxt is None or not all(p.startswith(guard + nxt) for p in pats):
            return guard
        guard += nxt


def _inner_offsets(lits: Iterable[str]) -> dict[str, tuple[int, ...]]:
    """For literals with a space or punctuation ("in your", "o usuário"): the offsets after it where
    another literal could start, so a long hit does not hide a shorter one inside it."""
    lits = list(lits)
    whole = set(lits)
    starts = {x[:n] for x in lits for n in range(1, len(x) + 1)}  # every prefix of every literal
    out: dict[str, tuple[int, ...]] = {}
    for lit in lits:
        if lit.isalnum():
            continue
        ks = []
        for k in range(1, len(lit)):
            if not lit[k - 1].isalnum() and lit[k].isalnum():
                rest = lit[k:]
                # rest starts a literal, or a literal starts rest (one of rest's prefixes is one)
                if rest in starts or any(rest[:n] in whole for n in range(1, len(rest) + 1)):
                    ks.append(k)
        if ks:
            out[lit] = tuple(ks)
    return out


def _trie_hits(pf: re.Pattern[str], text: str, inner: dict[str, tuple[int, ...]]
               ) -> list[tuple[int, int, str]]:
    """All hits of a trie regex, including literals hidden inside a longer multi-word hit."""
    out, extra = _trie_parts(pf, text, inner)
    if extra:
        out.extend(extra)
    return out


def _trie_parts(pf: re.Pattern[str], text: str, inner: dict[str, tuple[int, ...]]
                ) -> tuple[list[tuple[int, int, str]], list[tuple[int, int, str]]]:
    """The hits of a trie regex, and the literals hidden inside them (in the hits' order)."""
    out = [(m.start(), m.end(), m.group()) for m in pf.finditer(text)]
    extra = []
    match = pf.match
    for s, _e, lit in out:
        ks = inner.get(lit)
        if ks:
            for k in ks:
                m = match(text, s + k)
                if m is not None:
                    extra.append((m.start(), m.end(), m.group()))
    return out, extra


def _windows(spans: list[tuple[int, int, str]], w: int, n: int, rpos: list[int] | None,
             cover: Sequence[int] | None = None) -> list[list[int]]:
    """Merged windows of ``w`` characters around hits; with ``rpos`` (and ``cover``), only windows
    containing a position of it (and of ``cover``)."""
    windows: list[list[int]] = []
    for s, e, _ in spans:
        a, b = max(0, s - w), min(n, e + w)
        if windows and a <= windows[-1][1]:
            if b > windows[-1][1]:
                windows[-1][1] = b
        else:
            windows.append([a, b])
    for pos in (rpos, cover):
        if pos is not None:
            kept = []
            for wd in windows:
                k = bisect_left(pos, wd[0])
                if k < len(pos) and pos[k] < wd[1]:
                    kept.append(wd)
            windows = kept
    return windows


_UNESCAPE = re.compile(r"\\([^a-zA-Z0-9])")
_WS_CLASS = re.compile(r"\\s[+*?]?|\\s\{\d*,?\d*\}")


def _pattern_indices(rule: Rule, lit: str, cache: dict[int, list[str]] | None = None) -> set[int] | None:
    """Indices of ``rule``'s patterns whose source contains ``lit`` (None: no pattern names it).
    ``cache`` keeps each rule's normalised sources (by ``id(rule)``) across calls."""
    norms = None if cache is None else cache.get(id(rule))
    if norms is None:
        norms = [_UNESCAPE.sub(r"\1", _WS_CLASS.sub(" ", src.lower())) for src in rule.patterns]
        if cache is not None:
            cache[id(rule)] = norms
    out = {j for j, norm in enumerate(norms) if lit in norm}
    return out or None


def _disjoint(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Merge overlapping match spans of one rule (patterns and windows can overlap)."""
    spans.sort()
    out: list[tuple[int, int]] = []
    for s, e in spans:
        if out and s < out[-1][1]:
            if e > out[-1][1]:
                out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


def _weaken_disguised(encoded: list[Encoded], evs: list[_Ev], ctx: list[_Ev]) -> list[Encoded]:
    """Disguised runs (kinds in :data:`WEAKENED_KINDS`: words written as one identifier, letter-spaced
    sentences, HTML character references, JSON ``\\u`` escapes) in a document that discusses prompt
    injection: the strongest context evidence anywhere in it weakens the evidence decoded from each
    run and its decoded score (``Encoded.weight``, read by ``score.decoded_score``), as ``_dampen``
    weakens plain words near it (round 100 of ``benchmarks/model_selection.md`` for joined runs,
    round 171 for the others: security write-ups show such payloads as exhibits). The whole document
    counts, not a radius: a write-up names its exhibits far from its discussion words. Context
    evidence decoded from a disguised run does not count (a run cannot weaken itself). Quotes do not
    weaken a run: carriers quote identifiers (round 97). Base64, hex, URL-encoding, rot13 and tag
    characters keep their full weight."""
    own = [c for c in ctx if c.detail not in WEAKENED_KINDS and c.rule is not None]
    if not own:
        return encoded
    strongest = max(own, key=lambda c: c.weight)
    factor = 1.0 - strongest.weight
    out: list[Encoded] = []
    for enc in encoded:
        if enc.kind not in WEAKENED_KINDS:
            out.append(enc)
            continue
        for e in evs:
            if (e.detail == enc.kind and e.start == enc.start and e.end == enc.end and e.rule is not None
                    and e.rule.family != CONTEXT_FAMILY):
                e.weight *= factor
                e.note += " (weakened: the document discusses prompt injection)"
                e.context.append(strongest.rule.id)  # type: ignore[union-attr]
        out.append(replace(enc, weight=factor))
    return out


def _dampen(evs: list[_Ev], ctx: list[_Ev]) -> None:
    """Weaken visible-text evidence near text that discusses prompt injection."""
    for e in evs:
        if not e.plain or e.rule is None:
            continue
        strongest = 0.0
        for c in ctx:
            if c.start - DAMPEN_RADIUS <= e.end and e.start <= c.end + DAMPEN_RADIUS:
                strongest = max(strongest, c.weight)
        if strongest:
            e.weight *= 1.0 - strongest
            e.note += " (weakened: the passage discusses prompt injection)"
            e.context.extend(c.rule.id for c in ctx if c.rule is not None and
                             c.start - DAMPEN_RADIUS <= e.end and e.start <= c.end + DAMPEN_RADIUS)


SUPERSET_STRETCH = 8192
"""Characters of a rule's stretch of windows beyond which each window asks the rule's RE2 superset
on its own before it is searched, instead of one question over the whole stretch (over a long text
that question costs a pass over all of it, and its answer is more often "possible")."""

_LOCK = threading.Lock()
_SCANNER: Scanner | None = None


def get_scanner() -> Scanner:
    """The process-wide scanner over the shipped packs, built on first use (thread-safe)."""
    global _SCANNER
    if _SCANNER is None:
        with _LOCK:
            if _SCANNER is None:
                _SCANNER = Scanner(load_rules())
    return _SCANNER


# Quote pairs for prose quotations (a payload quoted as an example). Straight double quotes that
# open a JSON value or a code literal are not prose quotes: tool output is full of JSON strings.
_QUOTES = {'"': '"', "\u201c": "\u201d", "\u201e": "\u201c", "\u00ab": "\u00bb", "\u00bb": "\u00ab",
           "\u300c": "\u300d", "\u300e": "\u300f", "\u2018": "\u2019", "'": "'", "`": "`",
           "\u2039": "\u203a", "\u300a": "\u300b"}
_CLOSERS = frozenset("\u201d\u300d\u300f\u2019\u203a\u300b")
_QUOTE_SPAN = 400


def _in_prose_quotes(text: str, s: int, e: int) -> bool:
    """Whether ``text[s:e]`` sits inside a short prose quotation (quotes, backticks, <q>)."""
    lo = max(0, s - _QUOTE_SPAN)
    head = text[lo:s]
    low = head.lower()
    q = low.rfind("<q>")
    if q >= 0 and low.find("</q>", q) < 0 and "</q>" in text[e:e + _QUOTE_SPAN].lower():
        return True
    line_start = head.rfind("\n")
    for i in range(len(head) - 1, max(line_start, -1), -1):
        c = head[i]
        close = _QUOTES.get(c)
        if close is None:
            if c in _CLOSERS:
                return False  # the nearest quote mark closes an earlier quotation
            continue
        pos = lo + i
        escaped = pos > 0 and text[pos - 1] == "\\"
        if c == "'" and pos > 0 and text[pos - 1].isalnum():
            continue  # an apostrophe
        if c in "\u00ab\u00bb":
            # Guillemets point both ways: « … » (French, Russian, Spanish, ...) and » … « (German). A
            # mark with an unclosed mark of the other kind before it on its line closes that quotation
            # (round 86): `indique « livré » depuis … « J'ai été piraté »` has no quotation between
            # the » of « livré » and the next «.
            before = text[lo + line_start + 1:pos]
            other = "\u00ab" if c == "\u00bb" else "\u00bb"
            if before.count(other) > before.count(c):
                return False
        if c in "\"`":
            before = text[lo + line_start + 1:pos]
            n = before.count("\\" + c) if escaped else before.count(c) - before.count("\\" + c)
            if n % 2:
                return False  # this quote closes an earlier one: the span is not inside quotes
        if c in "\"'" and not escaped:
            j = pos - 1
            while j >= 0 and text[j] in " \t":
                j -= 1
            if j < 0 or text[j] in ":[,(={\n" and not (text[j] == ":" and j > 0 and text[j - 1].isalpha()):
                # a JSON value, a Python dict/list value ({'k': '...'}, the repr tools often return)
                # or a code literal: not a quotation
                return False
            if c == '"' and (text[j] in '";' or "\t" in text[j + 1:pos]):
                # a field of a machine-written line: it follows another quoted field (an access log's
                # "GET / HTTP/1.1" 200 512 "-" "user agent"), a semicolon (a ;-separated export) or a
                # tab (TSV): data, not a quotation (round 71)
                return False
        tail = text[e:e + _QUOTE_SPAN]
        nl = tail.find("\n")
        if nl >= 0:
            tail = tail[:nl]
        k = tail.find(("\\" + close) if escaped else close)
        if k < 0:
            return False
        if close == "'" and k + 1 < len(tail) and tail[k + 1].isalnum():
            return False
        return True
    return False


# Source code (imports, definitions, tests): evidence inside its string literals is test data or
# configuration far more often than an instruction to the reader.
_CODE_MARKERS = regex.compile(
    r"^[ \t]*(?:import\s+[\w{*]|from\s+[\w.]+\s+import\s|def\s+\w+\s*\(|class\s+\w+[(:]|"
    r"(?:export\s+)?(?:const|let|var)\s+\w+\s*=|(?:async\s+)?function\s+\w+\s*\(|describe\(|it\(|test\(|"
    r"assert\s|@pytest|#include\s|package\s+[\w.]+;?$|public\s+(?:static\s+|final\s+)*(?:class|void|\w+)\s)",
    regex.MULTILINE,
)


def _may_join_encoded(text: str, seps: Sequence[int]) -> bool:
    """Whether an encoded run of ``text`` may reach across one of the separators ``seps`` (newlines):
    only base64 wrapped over lines does (``fold.find_encoded`` joins runs of 24+ characters that
    only a line break and a blank or two divide), so a separator with fewer than 24 characters
    without blanks just before it (one blank on each side allowed) cannot be inside one."""
    full = _NO_BLANK_24.fullmatch
    for p in seps:
        end = p
        if end > 0 and text[end - 1] in " \t\r":
            end -= 1
        if end >= 24 and full(text, end - 24, end) is not None:
            return True
    return False


_NO_BLANK_24 = re.compile(r"\S{24}")  # re's \S in a str pattern is exactly ``not str.isspace()``


def _in_string_literal(text: str, s: int) -> bool:
    """Whether offset ``s`` is inside a quoted literal on its line (odd number of quotes before it)."""
    ls = text.rfind("\n", 0, s) + 1
    before = text[ls:s]
    for q in ('"', "'", "`"):
        n = before.count(q) - before.count("\\" + q)
        if n % 2 == 1:
            return True
    return before.lstrip().startswith(('"""', "'''"))
