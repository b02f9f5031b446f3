"""Folding: a canonical copy of a text for matching, with a map back to the original offsets.

Attackers hide instructions from naive matchers with invisible characters, lookalike letters,
leetspeak, spaced letters and encodings. Detection runs on a *folded* copy so that these evasions
cost the attacker, not us, and every match is mapped back to character offsets in the text the
caller gave us.

Three layers, each cheap when it has nothing to do:

- :func:`fold` (always): NFKC, removal of zero-width/bidi controls and Unicode tag characters (the
  hidden ASCII they spell is decoded and returned for a separate scan), combining-mark stripping on
  Latin letters, and homoglyph folding of mixed-script words (Cyrillic/Greek lookalikes inside Latin
  words; Latin lookalikes inside Cyrillic words). ASCII text skips all of it.
- :func:`unleet` and :func:`spaced_runs` (on demand): leetspeak digits read as letters (same
  length, so offsets do not move) and letters padded with spaces or punctuation ("i g n o r e",
  "i.g.n.o.r.e").
- :func:`find_encoded` (on demand): base64, hex and URL-encoded runs whose decoded bytes are text,
  windows of HTML character references (``&lt;``, ``&#73;``, ``&#x4E2D;``) and of JSON ``\\uXXXX``
  escapes read as the characters they stand for, stretches spelt one character at a time with one
  separator read as words, and words joined into one identifier by ``_``, ``-`` or ``.`` (read with
  spaces).

Offsets are mapped with :class:`OffsetMap`: a list of segments, either copied (linear) or replaced
(a folded piece standing for an original span), so a 1 MB text with a handful of changes costs a
handful of segments, not a million-entry array.
"""

from __future__ import annotations

import binascii
import html
import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from html.entities import html5 as _HTML5
from collections.abc import Callable, Iterable
from typing import Any, TypeGuard
from urllib.parse import unquote_plus

import regex

__all__ = [
    "Encoded",
    "Folded",
    "OffsetMap",
    "apply_edits",
    "find_encoded",
    "fold",
    "is_texty",
    "spaced_runs",
    "spaced_stretches",
    "unleet",
]


class OffsetMap:
    """Maps offsets in a folded string back to offsets in the string it was folded from.

    ``start(i)`` maps a start offset (a piece that replaced a longer original span maps to the
    start of that span); ``end(i)`` maps an end offset (to the end of the span). Both are
    monotonically non-decreasing over ``0..folded_len`` and stay within ``0..orig_len``.
    """

    __slots__ = ("_fs", "_os", "_oe", "_copy", "folded_len", "orig_len")

    def __init__(self, folded_len: int, orig_len: int, fs: list[int] | None = None,
                 os_: list[int] | None = None, oe: list[int] | None = None,
                 copy: list[bool] | None = None) -> None:
        self.folded_len = folded_len
        self.orig_len = orig_len
        self._fs = fs
        self._os = os_ or []
        self._oe = oe or []
        self._copy = copy or []

    @classmethod
    def identity(cls, n: int) -> OffsetMap:
        return cls(n, n)

    @property
    def is_identity(self) -> bool:
        return self._fs is None

    def _seg(self, i: int) -> int:
        assert self._fs is not None
        return bisect_right(self._fs, i) - 1

    def start(self, i: int) -> int:
        if self._fs is None:
            return i
        if i >= self.folded_len:
            return self.orig_len
        k = self._seg(i)
        if k < 0:
            return 0
        if self._copy[k]:
            return self._os[k] + (i - self._fs[k])
        return self._os[k]

    def end(self, i: int) -> int:
        if self._fs is None:
            return i
        if i >= self.folded_len:
            return self.orig_len
        k = self._seg(i)
        if k < 0:
            return 0
        if self._copy[k]:
            return self._os[k] + (i - self._fs[k])
        return self._os[k] if i == self._fs[k] else self._oe[k]

    def span(self, s: int, e: int) -> tuple[int, int]:
        a = self.start(s)
        b = self.end(e)
        return a, max(a, b)


class _Builder:
    """Assembles a folded string from copied and replaced pieces of an original."""

    __slots__ = ("orig", "parts", "fs", "os", "oe", "copy", "flen", "pos")

    def __init__(self, orig: str) -> None:
        self.orig = orig
        self.parts: list[str] = []
        self.fs: list[int] = []
        self.os: list[int] = []
        self.oe: list[int] = []
        self.copy: list[bool] = []
        self.flen = 0
        self.pos = 0  # next original offset not yet emitted

    def copy_to(self, b: int) -> None:
        a = self.pos
        if b <= a:
            return
        if self.copy and self.copy[-1] and self.oe[-1] == a:
            self.oe[-1] = b
        else:
            self.fs.append(self.flen)
            self.os.append(a)
            self.oe.append(b)
            self.copy.append(True)
        self.parts.append(self.orig[a:b])
        self.flen += b - a
        self.pos = b

    def replace(self, a: int, b: int, new: str) -> None:
        """Replace original ``[a, b)`` (with ``a >= pos``) by ``new`` ("" removes it)."""
        self.copy_to(a)
        if new:
            if len(new) == b - a and self.orig[a:b] == new:
                self.copy_to(b)
                return
            self.fs.append(self.flen)
            self.os.append(a)
            self.oe.append(b)
            self.copy.append(False)
            self.parts.append(new)
            self.flen += len(new)
        self.pos = b

    def finish(self) -> tuple[str, OffsetMap]:
        self.copy_to(len(self.orig))
        text = "".join(self.parts)
        if len(self.fs) == 1 and self.copy[0] and self.os[0] == 0 and len(text) == len(self.orig):
            return text, OffsetMap.identity(len(text))
        if not self.fs:
            return text, OffsetMap(0, len(self.orig), [0], [len(self.orig)], [len(self.orig)], [True])
        return text, OffsetMap(len(text), len(self.orig), self.fs, self.os, self.oe, self.copy)


# --- Unicode folding tables --------------------------------------------------------------------

# Invisible formatting characters removed from the folded copy: zero-width space/joiners, word
# joiner and invisible operators, BOM, soft hyphen, Mongolian vowel separator, combining grapheme
# joiner, bidi embeddings/overrides/isolates and marks, Hangul fillers.
_INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad\u180e\u034f"
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u061c\u115f\u1160\u3164\uffa0"
)
_TAG_LO, _TAG_HI = 0xE0000, 0xE007F
# Zero-width non-joiner and joiner are spelling in the Arabic script (Persian "می‌شود", Urdu, Kurdish)
# and the Indic scripts: removed from the folded copy like any invisible, but not evidence of hiding.
_JOINERS = frozenset("\u200c\u200d")
_JOINER_SCRIPT = regex.compile(r"[\p{Arabic}\p{Devanagari}\p{Bengali}\p{Gurmukhi}\p{Gujarati}\p{Oriya}"
                               r"\p{Tamil}\p{Telugu}\p{Kannada}\p{Malayalam}\p{Sinhala}]")


def _orthographic_joiner(text: str, i: int, j: int) -> bool:
    """Whether ``text[i:j]`` is only ZWNJ/ZWJ between two letters of a script that spells with them."""
    return (all(c in _JOINERS for c in text[i:j]) and _JOINER_SCRIPT.match(text, i - 1) is not None
            and _JOINER_SCRIPT.match(text, j) is not None)

# Lookalikes folded only inside mixed-script words (so Russian or Greek text is left alone).
_TO_LATIN: dict[str, str] = dict(zip(
    "аԁеёһіїјӏкмноԛрѕсԝтухуАВЕЁНІЇЈКМНОРЅСТХУԚԜ" "αβεηικνορτυχωΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
    "adeehiijlkmhoqpscwtyxyABEEHIIJKMHOPSCTXYQW" "abenikvoptuxwABEZHIKMNOPTYX",
))
# Latin lookalikes folded to Cyrillic inside words that are mostly Cyrillic.
_TO_CYRILLIC: dict[str, str] = dict(zip("aceopxyABCEHKMOPTX", "асеорхуАВСЕНКМОРТХ"))
# Always folded: Latin small capitals and dotted/dotless i (not touched by NFKC).
_ALWAYS: dict[str, str] = dict(zip(
    "ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢıİ",
    "abcdefghijklmnoprstuvwyziI",
))

_SPECIAL = regex.compile(
    r"[\p{NFKC_QC=N}\p{NFKC_QC=M}\p{Mn}"
    + "".join(sorted(_INVISIBLE)) + "".join(_ALWAYS)
    + r"\U000E0000-\U000E007F]+"
)
_MIXED_SCRIPT = regex.compile(r"[\p{Cyrillic}\p{Greek}]")
_MIXED_WORD = regex.compile(
    r"(?<![\p{L}\p{M}])(?=[\p{L}\p{M}]*(?:[A-Za-z][\p{Cyrillic}\p{Greek}]|[\p{Cyrillic}\p{Greek}][A-Za-z]))"
    r"[\p{L}\p{M}]+"
)


@lru_cache(maxsize=4096)
def _nfkc(c: str) -> str:
    n = unicodedata.normalize("NFKC", c)
    if any(ch in _ALWAYS for ch in n):
        n = "".join(_ALWAYS.get(ch, ch) for ch in n)
    return n


@dataclass(slots=True)
class Folded:
    """A folded copy of a text.

    Attributes:
        text: The folded text (same length and content as the original when it is ASCII).
        map: Offsets in ``text`` -> offsets in the original.
        tags: ``(start, end, decoded)`` for every run of Unicode tag characters in the original.
        invisibles: ``(start, end)`` of invisible characters removed from between two letters.
        homoglyphs: ``(start, end)`` (original offsets) of mixed-script words that were folded.
    """

    text: str
    map: OffsetMap
    tags: list[tuple[int, int, str]] = field(default_factory=list)
    invisibles: list[tuple[int, int]] = field(default_factory=list)
    homoglyphs: list[tuple[int, int]] = field(default_factory=list)


def fold(text: str) -> Folded:
    """Fold ``text`` for matching (see the module docstring). ASCII text is returned as is."""
    if text.isascii():
        return Folded(_unemphasise(_unescape_json_ws(text)), OffsetMap.identity(len(text)))
    b = _Builder(text)
    tags: list[tuple[int, int, str]] = []
    invisibles: list[tuple[int, int]] = []
    n = len(text)
    for m in _SPECIAL.finditer(text):
        i, stop = m.span()
        tag_start = -1
        tag_chars: list[str] = []
        while i < stop:
            c = text[i]
            cp = ord(c)
            if _TAG_LO <= cp <= _TAG_HI:
                if tag_start < 0:
                    tag_start = i
                if 0x20 <= cp - _TAG_LO <= 0x7E:
                    tag_chars.append(chr(cp - _TAG_LO))
                b.replace(i, i + 1, "")
                i += 1
                continue
            if tag_start >= 0:
                tags.append((tag_start, i, "".join(tag_chars)))
                tag_start, tag_chars = -1, []
            if c in _INVISIBLE:
                j = i
                while j < stop and text[j] in _INVISIBLE:
                    j += 1
                if (i > 0 and text[i - 1].isalpha() and j < n and text[j].isalpha()
                        and not _orthographic_joiner(text, i, j)):
                    invisibles.append((i, j))
                b.replace(i, j, "")
                i = j
                continue
            if unicodedata.combining(c):
                # A combining mark: compose with the previous folded character when NFKC can,
                # otherwise drop it after a Latin letter (diacritic/"zalgo" padding).
                b.copy_to(i)
                prev = b.parts[-1][-1:] if b.parts else ""
                if prev:
                    comp = unicodedata.normalize("NFKC", prev + c)
                    if len(comp) == 1:
                        _replace_last_char(b, comp, i + 1)
                        i += 1
                        continue
                    if prev.isascii() and prev.isalpha():
                        b.replace(i, i + 1, "")
                        i += 1
                        continue
            b.replace(i, i + 1, _nfkc(c))
            i += 1
        if tag_start >= 0:
            tags.append((tag_start, stop, "".join(tag_chars)))
    folded, omap = b.finish()
    homoglyphs: list[tuple[int, int]] = []
    if _MIXED_SCRIPT.search(folded):
        folded, homoglyphs = _fold_mixed_words(folded, omap)
    return Folded(_unemphasise(_unescape_json_ws(folded)), omap, tags, invisibles, homoglyphs)


# JSON / string-literal whitespace escapes inside raw serialised text ("...\nIgnore all...") glue
# the escape letter to the next word ("nIgnore"), so no word boundary is seen. They are replaced
# by whitespace of the same length: a line break stays a line break (" \n"), offsets stay valid.
_JSON_WS = re.compile(r"(?<!\\)\\([nrt])")
_JSON_WS_REPL = {"n": " \n", "r": "  ", "t": "  "}


# Markdown emphasis with underscores ("_Ignore all previous instructions_") glues "_" to the first
# and last word, and "_" is a word character, so "\bignore" never matches there. A pair of one or
# two underscores around words on one line, opening after a non-word character (or the start) and
# closing before one (or the end), with a space inside, becomes spaces of the same length. Inner
# underscores (send_email), lone ones (_private) and dunders (__init__, no space inside) stay, so
# source code reads as before.
# Written with the underscores first and the "not after a word character" test as a lookbehind
# behind them, so re skips to each "_" instead of trying the lookbehind at every position (8x faster
# on source code); same matches as (?<!\w)(_{1,2})([^\W\d_][^\n_]{0,300}?[^\W\d_])\1(?!\w)
# (tests/test_detect_fold.py compares the two).
_EMPHASIS = re.compile(r"__(?<!\w__)([^\W\d_][^\n_]{0,300}?[^\W\d_])__(?!\w)"
                       r"|_(?<!\w_)([^\W\d_][^\n_]{0,300}?[^\W\d_])_(?!\w)")


def _unemphasise(text: str) -> str:
    if "_" not in text:
        return text
    return _EMPHASIS.sub(_blank_emphasis, text)


def _blank_emphasis(m: re.Match[str]) -> str:
    inner, width = m.group(1), 2
    if inner is None:
        inner, width = m.group(2), 1
    if " " not in inner:
        return m.group()  # one word or an identifier (__init__): left as written
    pad = " " * width
    return pad + inner + pad


def _unescape_json_ws(text: str) -> str:
    if "\\" not in text:
        return text
    return _JSON_WS.sub(lambda m: _JSON_WS_REPL[m.group(1)], text)


def _replace_last_char(b: _Builder, comp: str, new_pos: int) -> None:
    """Replace the last emitted folded character by ``comp``, extending it to ``new_pos``."""
    last = b.parts[-1]
    if b.copy[-1]:
        # Split the copied segment: its last character becomes a replaced one-char segment.
        orig_last = b.oe[-1] - 1
        if len(last) == 1:
            b.parts.pop()
            b.fs.pop(); b.os.pop(); b.oe.pop(); b.copy.pop()
        else:
            b.parts[-1] = last[:-1]
            b.oe[-1] -= 1
        b.flen -= 1
        b.pos = orig_last
        b.replace(orig_last, new_pos, comp)
    else:
        b.parts[-1] = last[:-1] + comp
        b.oe[-1] = new_pos
        b.pos = new_pos


def _fold_mixed_words(folded: str, omap: OffsetMap) -> tuple[str, list[tuple[int, int]]]:
    chars: list[str] | None = None
    spans: list[tuple[int, int]] = []
    for m in _MIXED_WORD.finditer(folded):
        word = m.group()
        latin = sum(1 for ch in word if ch.isascii())
        table = _TO_LATIN if latin * 2 >= len(word) else _TO_CYRILLIC
        new = "".join(table.get(ch, ch) for ch in word)
        if new != word:
            if chars is None:
                chars = list(folded)
            s = m.start()
            chars[s:m.end()] = new
            spans.append(omap.span(s, m.end()))
    return ("".join(chars) if chars is not None else folded), spans


# --- Deobfuscation: leetspeak and letter padding -----------------------------------------------

_HEXCHARS = frozenset("0123456789abcdefABCDEF")

# Leetspeak is undone by a same-length translation (so offsets do not move): the scanner runs its
# prefilter on the translated text and rescans only where a keyword appeared through it.
LEET_TABLE = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t"})


def unleet(text: str) -> str:
    """``text`` with leet digits read as letters ("11" as "ll"); same length, same offsets."""
    return text.replace("11", "ll").translate(LEET_TABLE)


# Letter padding ("i g n o r e", "i.g.n.o.r.e"): a same-length shape string makes the gate a
# substring test; the regex runs only around its hits.
_SHAPE = str.maketrans({**{c: "a" for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"},
                        **{c: " " for c in " .-_*|/~+:,'"}})
_SHAPE_BYTES = bytes.maketrans(
    b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ .-_*|/~+:,'",
    b"a" * 52 + b" " * 12)
_SPACED = re.compile(
    r"(?<![^\W\d_])[^\W\d_](?P<sep>[ .\-_*|/~+:,'])[^\W\d_](?:(?P=sep)[^\W\d_]){2,}(?![^\W\d_])")


@lru_cache(maxsize=4)
def _shape(text: str) -> str:
    """``text`` with ASCII letters as ``a``, the separators of :data:`_SHAPE` as spaces and (bytes.translate
    is fast; "replace" keeps one character per character, so offsets still agree) other non-ASCII
    characters as ``?``."""
    if text.isascii():
        return text.translate(_SHAPE)
    return text.encode("ascii", "replace").translate(_SHAPE_BYTES).decode("ascii")


def spaced_runs(text: str) -> list[tuple[int, int, str]]:
    """Runs of four or more single letters joined by one repeated separator, with the letters joined."""
    if text.isascii():
        shape = text.translate(_SHAPE)
        i = shape.find("a a a a")
    else:
        # bytes.translate is fast; "replace" keeps one byte per character, so offsets still agree.
        i = text.encode("ascii", "replace").translate(_SHAPE_BYTES).find(b"a a a a")
    if i < 0:
        return []
    shape_find = _shape(text).find
    out: list[tuple[int, int, str]] = []
    pos = 0
    while i >= 0:
        end = i + 7
        for m in _SPACED.finditer(text, max(pos, i - 1), min(len(text), i + 400)):
            out.append((m.start(), m.end(), m.group().replace(m.group("sep"), "")))
            end = max(end, m.end())
        pos = end
        i = shape_find("a a a a", end)
    return out


def apply_edits(text: str, edits: list[tuple[int, int, str]], start: int = 0,
                end: int | None = None) -> tuple[str, OffsetMap]:
    """``text[start:end]`` with sorted, non-overlapping ``edits`` applied; offsets map into ``text``."""
    end = len(text) if end is None else end
    b = _Builder(text)
    b.pos = start
    for s, e, new in edits:
        if s < start or e > end:
            continue
        b.replace(s, e, new)
    b.copy_to(end)
    folded = "".join(b.parts)
    fs = b.fs or [0]
    return folded, OffsetMap(len(folded), end, fs, b.os or [start], b.oe or [end], b.copy or [True])


# --- Encoded payloads --------------------------------------------------------------------------

@dataclass(slots=True, frozen=True)
class Encoded:
    """A run of encoded text whose decoded form is text worth scanning."""

    start: int
    end: int
    kind: str  # "base64", "hex", "url", "charref", "jsonesc", "spaced", "rot13", "tags", "joined"
    decoded: str
    weight: float = 1.0  # what the document's context leaves of its decoded score (engine.WEAKENED_KINDS)
    lead: int = 0  # joined runs: where the first run starts, from ``start``
    hides: bool = True  # whether the encoding itself hides text (False: escaped markup, see find_encoded)


# Each kind has its own stdlib ``re`` pattern (linear, no nested quantifiers) and a cheap gate.
_PCT = re.compile(r"%[0-9A-Fa-f]{2}")
_URL_RUN = re.compile(r"(?<![^\s\"'<>(\[=])(?:[^\s%\"'<>]*%[0-9A-Fa-f]{2}){3,}[^\s%\"'<>]*")
_B64_STRIP = str.maketrans("", "", "\r\n")
_B64_URLSAFE = str.maketrans("-_", "+/")
MAX_DECODE_CHARS = 1 << 20  # per run
# HTML character references: numeric (decimal or hex, the ";" optional as browsers read them) and
# named (with their ";"). Linear: fixed-length alternatives after a literal "&".
_CHARREF = re.compile(r"&(?:#[xX]([0-9A-Fa-f]{1,6});?|#([0-9]{1,7});?|([A-Za-z][A-Za-z0-9]{1,31};))")
# JSON escapes (kind "jsonesc"): "\uXXXX", surrogate pairs joined. Linear: a fixed-length pattern.
_JSONESC = re.compile(r"\\u([dD][89abAB][0-9A-Fa-f]{2})\\u([dD][c-fC-F][0-9A-Fa-f]{2})|\\u([0-9A-Fa-f]{4})")
CHARREF_GAP = 200  # escapes (HTML references, JSON \u escapes) this close belong to one window
CHARREF_PAD = 300  # context read with a window on each side


_CJK_TEXT = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def is_texty(s: str) -> bool:
    """Whether decoded bytes look like natural-language text rather than binary or noise.

    Text: few control characters, and either letters are half of it and it has a space, or letters
    are 90% of it, or (Chinese, Japanese, Korean prose: no spaces, and punctuation such as ，。「」
    that is not letters) half of it is ideographs, kana or Hangul, which random bytes essentially
    never decode to as UTF-8 (round 64 of ``benchmarks/model_selection.md``).
    """
    if not s:
        return False
    sample = s[:2048]
    bad = sum(1 for ch in sample if not (ch.isprintable() or ch in "\n\r\t"))
    if bad > len(sample) // 50:
        return False
    letters = sum(1 for ch in sample if ch.isalpha())
    if (letters * 2 >= len(sample) and " " in sample) or (letters * 10 >= len(sample) * 9 and len(sample) >= 8):
        return True
    return len(sample) >= 4 and len(_CJK_TEXT.findall(sample)) * 2 >= len(sample)


def _decode_b64(run: str) -> str | None:
    s = run.translate(_B64_STRIP).rstrip("=")
    if len(s) % 4 == 1:
        s = s[:-1]
    if "-" in s or "_" in s:
        s = s.translate(_B64_URLSAFE)
    s += "=" * (-len(s) % 4)
    try:
        raw = binascii.a2b_base64(s[:MAX_DECODE_CHARS])
    except (binascii.Error, ValueError):
        return None
    return _utf8(raw)


def _utf8(raw: bytes) -> str | None:
    """``raw`` as UTF-8 (None: not UTF-8). A character cut at the very end (a run truncated, or a
    wrapped block missing its tail) is dropped rather than refusing the whole run."""
    for cut in range(4):
        if cut and (len(raw) <= cut or raw[-cut] < 0x80):
            break  # only trailing bytes of a multi-byte sequence can be a cut character
        try:
            return (raw[:-cut] if cut else raw).decode("utf-8")
        except UnicodeDecodeError as e:
            if e.end < len(raw) - cut and e.reason != "unexpected end of data":
                return None  # invalid inside, not only cut at the end
    return None


def _decode_hex(run: str) -> str | None:
    s = run.replace("\\x", "").replace("\\X", "").replace(" ", "").replace(":", "")
    try:
        raw = bytes.fromhex(s[:MAX_DECODE_CHARS])
    except ValueError:
        return None
    return _utf8(raw)


_B64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-=")
_B64_NESTED = re.compile(r"[A-Za-z0-9+/_\-]{24,}={0,2}|(?:[0-9A-Fa-f]{2}){16,}")
_B64_IN_TOKEN = re.compile(r"[A-Za-z0-9+/_\-]{24,}={0,2}")
_QUERY_SEP = re.compile(r"[?&](?=[\w.\-\[\]]{1,40}=)")
_B64_TAIL = re.compile(r"\r?\n([A-Za-z0-9+/]{1,23}={0,2})[ \t]*(?=\r?\n|$)")
_HEX_ESC_RUN = re.compile(r"(?:\\x[0-9A-Fa-f]{2}){8,}")


def _long_tokens(text: str) -> list[tuple[int, int]]:
    """Offsets of whitespace-separated tokens of 24+ characters (the only places base64 can be)."""
    out: list[tuple[int, int]] = []
    pos = 0
    for tok in text.split():
        if len(tok) >= 24:
            i = text.find(tok, pos)
            out.append((i, i + len(tok)))
            pos = i + len(tok)
    return out


# Words joined into one identifier by a repeated separator ("ignore_all_previous_instructions",
# "delete-the-prod-database", "print.your.system.prompt"): at least JOINED_MIN_PARTS parts, of which
# JOINED_MIN_WORDS are words of two or more letters (round 94 of benchmarks/model_selection.md).
JOINED_MIN_PARTS = 5
JOINED_MIN_WORDS = 4
_NAMING = frozenset(("test", "tests", "should", "it", "expect", "assert", "check", "verify"))
_PART = re.compile(r"[^\W_]+")
_SEPARATORS = "_.-"


def _joined_runs(tok: str) -> list[tuple[int, int, list[str]]]:
    """``(start, end, parts)`` of the runs of ``tok`` whose parts (letters and digits) are joined by
    one repeated separator, at least JOINED_MIN_PARTS parts each, leftmost first. One pass over the
    parts (a regular expression with a back-reference to the separator backtracks quadratically on
    a long part followed by a lone separator)."""
    runs: list[tuple[int, int, list[str]]] = []
    start = end = 0
    sep = ""
    parts: list[str] = []
    last_start = 0
    for m in _PART.finditer(tok):
        s, e = m.span()
        gap = tok[end:s] if parts else ""
        if parts and len(gap) == 1 and gap in _SEPARATORS and (not sep or gap == sep):
            sep = gap
            parts.append(m.group())
            end, last_start = e, s
            continue
        if len(parts) >= JOINED_MIN_PARTS:
            runs.append((start, end, parts))
            parts = []
        if parts and len(gap) == 1 and gap in _SEPARATORS:
            # another separator: a run may start at the previous part ("a_b_c-d-e-f-g")
            parts = [parts[-1], m.group()]
            start, end, sep, last_start = last_start, e, gap, s
            continue
        start, end, sep, parts, last_start = s, e, "", [m.group()], s
    if len(parts) >= JOINED_MIN_PARTS:
        runs.append((start, end, parts))
    return runs


_ATTR_URL = re.compile(r"=[\"']?/")


def _joined_words(text: str, a: int, b: int) -> tuple[int, str] | None:
    """``(lead, words)``: the whitespace-free token ``text[a:b]`` with the separators of its
    joined-word runs read as spaces, and where its first such run starts (from ``a``); None when it
    holds no run of enough words (an identifier is the one place where a sentence can be written
    without spaces)."""
    tok = text[a:b]
    if "_" not in tok and "-" not in tok and "." not in tok:
        return None
    out: list[str] = []
    pos = 0
    lead = -1
    # a URL or an absolute path, also as an attribute's value (href="/blog/..."; round 100): its path
    # segments are the site's titles
    url = ("://" in tok or tok.startswith(("/", "www.")) or (tok[:1] in "\"'(<[" and tok[1:2] == "/")
           or _ATTR_URL.search(tok) is not None)
    for rs, re_, parts in _joined_runs(tok):
        if sum(1 for p in parts if len(p) >= 2 and p.isalpha()) < JOINED_MIN_WORDS:
            continue
        if (url and rs and tok[rs - 1] == "/") or tok.startswith("(", re_) or parts[0].lower() in _NAMING:
            continue  # a URL's path segment (the site's title), a function, a test named for what it checks
        if lead < 0:
            lead = rs
        out.append(tok[pos:rs])
        out.append(" ".join(parts))
        pos = re_
    if not out:
        return None
    out.append(tok[pos:])
    return lead, "".join(out)


def _decode_run(run: str) -> tuple[str | None, str]:
    if len(run) % 2 == 0 and all(ch in _HEXCHARS for ch in run):
        return _decode_hex(run), "hex"
    return _decode_b64(run), "base64"


def _readable(dec: str | None) -> TypeGuard[str]:
    """Whether a decoded base64/hex run is worth keeping: text, or another encoded layer to unwrap."""
    return dec is not None and (is_texty(dec) or _B64_NESTED.fullmatch(dec.strip()) is not None)


def find_encoded(text: str) -> list[Encoded]:
    """Encoded runs in ``text`` (base64, hex, URL-encoding, HTML character references, JSON ``\\u``
    escapes) whose decoded form is text, sentences spelt letter by letter (kind ``spaced``), and runs
    of words joined into one identifier (kind ``joined``).

    Cheap gates keep this off the hot path: base64/hex runs and joined words can only live in long
    whitespace-free tokens; URL-encoding needs a ``%``; ``\\x`` escapes need a backslash-x; character
    references need a ``&``; JSON escapes a backslash-u; letter-spaced stretches four single
    characters with separators between them (the shape :func:`spaced_runs` reads).
    """
    out: list[Encoded] = []
    spans: list[tuple[int, int]] = []
    longs = _long_tokens(text)
    for a, b in longs:
        for m in _B64_IN_TOKEN.finditer(text, a, b):
            spans.append(m.span())
    # MIME-style base64 wraps over lines: join runs separated only by a line break.
    merged: list[list[int]] = []
    for a, b in spans:
        if merged and 0 < a - merged[-1][1] <= 2 and text[merged[-1][1]:a].strip() == "":
            merged[-1][1] = b
        else:
            merged.append([a, b])
    for run in merged:
        # A wrapped block's last line is usually shorter than a long token: a whole line of base64
        # right after a block of two or more wrapped lines joins it (kept as a third item: the
        # block is read without it when it does not decode with it).
        if "\n" in text[run[0]:run[1]] and (m := _B64_TAIL.match(text, run[1])) is not None:
            run.append(m.end(1))
    for a, b, *tail in merged:
        run = text[a:tail[0] if tail else b]
        if run.isalpha() and (run.islower() or run.isupper()):
            continue  # a long single-case word is not base64 worth decoding
        dec, kind = _decode_run(run)
        if tail and not _readable(dec):
            # the line after the block is a word that only looks like base64 ("thanks", "Regards"),
            # which broke the block's decoding: read the block alone
            dec, kind = _decode_run(text[a:b])
        elif tail:
            b = tail[0]
        if _readable(dec):
            out.append(Encoded(a, b, kind, dec))
    for a, b in longs:
        run = _joined_words(text, a, b)
        if run is not None and is_texty(run[1]):
            out.append(Encoded(a, b, "joined", run[1], lead=run[0]))
    if "\\x" in text:
        for m in _HEX_ESC_RUN.finditer(text):
            dec = _decode_hex(m.group())
            if dec is not None and is_texty(dec):
                out.append(Encoded(m.start(), m.end(), "hex", dec))
    pct = [m.start() for m in _PCT.finditer(text)] if "%" in text else []
    if len(pct) >= 3:
        windows: list[list[int]] = []
        for p in pct:
            if windows and p - windows[-1][1] <= 200:
                windows[-1][1] = p
            else:
                windows.append([p, p])
        for a, b in windows:
            a = max(0, a - 300)
            b = min(len(text), b + 300)
            for m in _URL_RUN.finditer(text, a, b):
                if m.group().count("%") < 3:
                    continue
                try:
                    dec = unquote_plus(m.group()[:MAX_DECODE_CHARS], errors="strict")
                except UnicodeDecodeError:
                    continue
                if is_texty(dec) or is_texty(_pct_stretch(m.group())):
                    # One query parameter per line: a value is read as a passage of its own.
                    out.append(Encoded(m.start(), m.end(), "url", _QUERY_SEP.sub("\n", dec)))
    if "&" in text:
        out.extend(_charref_windows(text))
    if "\\u" in text:
        out.extend(_jsonesc_windows(text))
    out.extend(_spaced_windows(text))
    return out


def _charref_char(m: re.Match[str]) -> str | None:
    """The character one reference stands for (None: not a character, or not one reference)."""
    hx, dec, name = m.groups()
    if name is not None:
        ch = _HTML5.get(name)
        return ch if ch is not None and len(ch) == 1 else None
    cp = int(hx, 16) if hx is not None else int(dec)
    if cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
        return None
    return chr(cp)


def _jsonesc_char(m: re.Match[str]) -> str | None:
    """The character one ``\\uXXXX`` escape (or surrogate pair) stands for; None for a lone surrogate."""
    hi, lo, one = m.groups()
    if one is None:
        return chr(0x10000 + ((int(hi, 16) - 0xD800) << 10) + (int(lo, 16) - 0xDC00))
    cp = int(one, 16)
    return None if 0xD800 <= cp <= 0xDFFF else chr(cp)


def _unescape_json_u(s: str) -> str:
    """``s`` with its ``\\uXXXX`` escapes (and surrogate pairs) written as the characters; other
    backslash escapes, and lone surrogates, stay as they are."""
    return _JSONESC.sub(lambda m: _jsonesc_char(m) or m.group(), s)


def _charref_windows(text: str) -> list[Encoded]:
    """Windows of HTML character references, decoded (kind ``charref``; round 166 of
    ``benchmarks/model_selection.md``).

    A page's source shows ``&lt;system&gt;`` where the page shows ``<system>``, and a sentence can be
    written wholly as ``&#73;&#103;...``: the reader (a browser, a model) sees the characters.
    References for punctuation and spaces (``&#39;``, ``&quot;``, ``&nbsp;``, ``&amp;``), as every
    CMS writes them, change no word and start nothing (see :func:`_escape_windows`). ``hides``: a
    reference stands for an ASCII letter or digit, which no page needs to escape; escaped markup or
    non-ASCII text written as references is how HTML is written, not a hiding place, so its decoded
    text is read as evidence but not as evidence of hiding.
    """
    return _escape_windows(text, _CHARREF.finditer(text), _charref_char, html.unescape, "charref")


def _jsonesc_windows(text: str) -> list[Encoded]:
    """Windows of JSON ``\\uXXXX`` escapes, decoded (kind ``jsonesc``; round 168 of
    ``benchmarks/model_selection.md``).

    Python's ``json.dumps`` (by default) and PHP's ``json_encode`` write every non-ASCII character as
    an escape, so a Chinese or Russian sentence in such JSON is a run of ``\\u4e0d...`` that a model
    reads as the sentence. Only ``\\uXXXX`` escapes (surrogate pairs joined) are decoded; ``\\n``
    and the other short escapes are left to folding. ``hides``: an escape stands for an ASCII letter
    or digit, which no JSON encoder escapes.
    """
    return _escape_windows(text, _JSONESC.finditer(text), _jsonesc_char, _unescape_json_u, "jsonesc")


# A stretch written one character at a time with one separator between the characters (up to three
# separators, or separator-space-separator, between two words; or, round 173, one to three spaces
# between two words when the separator is not a space: "i.g.n.o.r.e  a.l.l"): at least 8
# characters. Linear: every repetition consumes one character and a bounded block of separators.
_SEPS = " .\\-_*|/~+\u00b7"
_STRETCH = re.compile(r"(?P<x>\S)(?P<s>[" + _SEPS + r"])(?: ?(?P=s)){0,2}"
                      r"(?:(?!(?P=s))\S(?:(?P=s)(?: ?(?P=s)){0,2}| {1,3})){6,}(?!(?P=s))\S")
SPACED_MIN_ALNUM = 12  # letters and digits a spaced stretch must spell to be read as words


def _despace(run: str, sep: str) -> str:
    """A letter-spaced stretch read as words: one separator between two characters goes, a longer
    block of separators (and spaces) is a word break, and so is a space where the separator is not a
    space (round 173)."""
    esc = re.escape(sep)
    return "".join(x + (" " if len(block) > 1 or (block == " " and sep != " ") else "")
                   for x, block in re.findall(r"([^\s" + esc + r"])([ " + esc + r"]*)", run)).strip()


def _one_separator(*seps: str) -> bool:
    """Whether the separators of a shape hit can belong to one stretch: all in :data:`_SEPS`, and one
    mark apart from spaces (a space may break words spelt with another mark, round 173)."""
    return all(c in _SEPS for c in seps) and len(set(seps) - {" "}) <= 1


def _one_letter_words_before(text: str, a: int, floor: int) -> int:
    """Where a stretch spelt with a mark starts once the one-letter words before it (each followed by
    one to three spaces: "把 用·户·的", "I  t.o.l.d") are taken in; never before ``floor``."""
    while True:
        j = a
        while j > floor and a - j < 3 and text[j - 1] == " ":
            j -= 1
        c = j - 1
        if j == a or c < floor or text[c].isspace() or text[c] in _SEPS or not text[c].isalnum():
            return a
        if c > floor and not text[c - 1].isspace():
            return a
        a = c


def _spaced_windows(text: str) -> list[Encoded]:
    """Letter-spaced stretches (:func:`spaced_stretches`) and windows of marked words among ordinary
    words (:func:`_marked_word_windows`), all of kind ``spaced``."""
    return _marked_word_windows(text, spaced_stretches(text))


def spaced_stretches(text: str) -> list[Encoded]:
    """Stretches spelt one character at a time with one separator, read as words (kind ``spaced``;
    round 169 of ``benchmarks/model_selection.md``).

    ``" ".join(sentence)`` or ``"-".join(sentence)`` hides every word from word matchers and from the
    model, while a reader reads it at once; :func:`spaced_runs` only de-pads the runs around a
    keyword. A stretch (:data:`_STRETCH`) counts when its characters are at least 80% letters or
    digits and spell :data:`SPACED_MIN_ALNUM` of them. The cheap gate is :func:`spaced_runs`' shape:
    four single characters in a row with separators between them.
    """
    find = _shape(text).find
    ascii_text = text.isascii()
    dots = not ascii_text and "\u00b7" in text  # a middle dot is "?" in the shape, as most scripts' letters
    keys = ("a a a a",) if ascii_text else ("a a a a", "? ? ? ?", "a?a?a?a")
    nexts = [find(key) for key in keys]  # the next hit of each key (-1: none left)
    if max(nexts) < 0 and not dots:
        return []

    def gate(pos: int) -> int:
        for k, key in enumerate(keys):
            if 0 <= nexts[k] < pos:
                nexts[k] = find(key, pos)
        hits = [j for j in nexts if j >= 0]
        if dots and (d := text.find("\u00b7", pos)) >= 0:
            hits.append(max(pos, d - 1))
        return min(hits, default=-1)

    i = gate(0)
    out: list[Encoded] = []
    pos = 0
    while i >= 0:
        nxt = i + 7
        if i + 5 >= len(text) or not _one_separator(text[i + 1], text[i + 3], text[i + 5]):
            pos = nxt  # the shape's separators differ ("e.g. a, b"): not one stretch
            i = gate(pos)
            continue
        lo, hi = max(pos, i - 48), min(len(text), i + 64)
        # A bounded search finds where a stretch over the hit starts (a hit in ordinary text costs a
        # hundred characters, not the rest of the text); the stretch is then matched in full.
        while (m := _STRETCH.search(text, lo, hi)) is not None and m.end() <= i:
            lo = m.end()
        if m is not None and m.start() <= i + 4:  # the hit may begin with a one-letter word and spaces
            m = _STRETCH.match(text, m.start())
            if m is not None:
                a, b, sep = m.start(), m.end(), m.group("s")
                if sep != " ":
                    if b < len(text) and text[b].isalnum() and text[b - 2] == " ":
                        # a space broke words and the last "character" starts an ordinary word
                        b -= 1
                        while text[b - 1] == " ":
                            b -= 1
                    a = _one_letter_words_before(text, a, lo)
                dec = _despace(text[a:b], sep)
                chars = dec.replace(" ", "")
                alnum = sum(1 for ch in chars if ch.isalnum())
                if alnum >= SPACED_MIN_ALNUM and alnum * 5 >= len(chars) * 4 and is_texty(dec):
                    out.append(Encoded(a, b, "spaced", dec))
                nxt = max(nxt, m.end())
        pos = nxt
        i = gate(pos)
    return out


def _gap_windows(text: str, spans: list[tuple[int, int, Any]], keep: Callable[[list[Any]], bool],
                 reach_from_start: bool = False) -> list[tuple[int, int, list[Any]]]:
    """Windows around clusters of ``spans`` (``(start, end, item)``, in order): a span within
    :data:`CHARREF_GAP` characters of the previous one joins its cluster (measured from the previous
    span's end, or from its start with ``reach_from_start``); a cluster whose items ``keep`` accepts is
    widened by up to :data:`CHARREF_PAD` characters each side, and windows that meet are merged.
    Returns ``(start, end, items)`` per window. Used by the escape windows and the marked-word windows."""
    clusters: list[tuple[int, int, list[Any]]] = []
    for a, b, item in spans:
        last = clusters[-1] if clusters else None
        if last is not None and a - (last[2][-1][0] if reach_from_start else last[1]) <= CHARREF_GAP:
            last[2].append((a, item))
            clusters[-1] = (last[0], b, last[2])
        else:
            clusters.append((a, b, [(a, item)]))
    windows: list[tuple[int, int, list[Any]]] = []
    for first, end, members in clusters:
        items = [item for _, item in members]
        if not keep(items):
            continue
        a, b = max(0, first - CHARREF_PAD), min(len(text), end + CHARREF_PAD)
        if windows and a <= windows[-1][1]:
            windows[-1] = (windows[-1][0], b, windows[-1][2] + items)
        else:
            windows.append((a, b, items))
    return windows


# Round 174: words (any script) spelt with one mark between their letters ("s.u.m.m.a.r.i.z.e",
# "요.약.하.는", "A.I"; a Korean particle may follow: "완.료라고") inside ordinary text. Linear: one
# pass, fixed-width steps.
_MARKED_WORD = re.compile(r"(?<![^\W\d_])[^\W\d_](?P<m>[.\-_*|/+\u00b7])[^\W\d_](?:(?P=m)[^\W\d_])*")
MARKED_MIN_LETTERS = 4  # a cluster needs one marked word this long that is not all ASCII capitals


def _marked_word_windows(text: str, stretches: list[Encoded]) -> list[Encoded]:
    """``stretches`` plus windows around key words spelt with a mark inside ordinary text, read with
    the words written whole (kind ``spaced``; round 174 of ``benchmarks/model_selection.md``).

    Words of two or more letters with one mark between their letters, outside ``stretches``, within
    :data:`CHARREF_GAP` characters of each other make a cluster; a cluster that holds a word of
    :data:`MARKED_MIN_LETTERS` or more letters that is not all ASCII capitals (``N.A.S.A.`` is an
    acronym) is widened by up to :data:`CHARREF_PAD` characters each side (clusters that meet are
    merged) and decoded with every such word written without its marks. Gate: the letter-spaced
    shape of :func:`_shape` (three single characters with separators between them).
    """
    shape = _shape(text)
    if shape.find("a a a") < 0 and shape.find("? ? ?") < 0 and "\u00b7" not in text:
        return stretches
    # The stretches' union, in order, read with one pointer as the words come in order (testing every
    # stretch against every word grew with the square of the text on alternating shapes).
    taken: list[list[int]] = []
    for r in sorted(stretches, key=lambda r: r.start):
        if taken and r.start <= taken[-1][1]:
            taken[-1][1] = max(taken[-1][1], r.end)
        else:
            taken.append([r.start, r.end])
    words: list[tuple[int, int, str]] = []
    j = 0
    for m in _MARKED_WORD.finditer(text):
        a, b = m.start(), m.end()
        while j < len(taken) and taken[j][1] <= a:
            j += 1
        if j < len(taken) and taken[j][0] < b:
            continue  # inside or across a stretch
        words.append((a, b, m.group().replace(m.group("m"), "")))
    if not words:
        return stretches
    windows = _gap_windows(text, [(a, b, (a, b, w)) for a, b, w in words],
                           lambda ws: any(len(w) >= MARKED_MIN_LETTERS and not (w.isascii() and w.isupper())
                                          for _, _, w in ws))
    if not windows:
        return stretches
    out = list(stretches)
    for a, b, ws in windows:
        parts, pos = [], a
        for s, e, w in ws:
            parts.append(text[pos:s])
            parts.append(w)
            pos = e
        parts.append(text[pos:b])
        out.append(Encoded(a, b, "spaced", "".join(parts)))
    out.sort(key=lambda r: r.start)
    return out


def _escape_windows(text: str, matches: Iterable[re.Match[str]],
                    char_of: Callable[[re.Match[str]], str | None], decode: Callable[[str], str],
                    kind: str) -> list[Encoded]:
    """Windows of escapes of one kind (``matches``), each decoded whole with ``decode``.

    A window starts only at escapes that stand for a letter, a digit, ``<`` or ``>`` (``char_of``:
    the character an escape stands for, None when it stands for none). At least two of them within
    :data:`CHARREF_GAP` characters of each other make a window, widened by up to
    :data:`CHARREF_PAD` characters each side (windows that meet are merged). ``hides`` is True where
    an escape in the window stands for an ASCII letter or digit. Every window is kept, whatever its
    decoded share of letters (dense JSON or markup around a few escaped words).
    """
    refs: list[tuple[int, bool]] = []  # (position, stands for an ASCII letter or digit)
    for m in matches:
        ch = char_of(m)
        if ch is not None and (ch in "<>" or ch.isalnum()):
            refs.append((m.start(), ch.isascii() and ch.isalnum()))
    windows = _gap_windows(text, [(pos, pos + 16, hides) for pos, hides in refs],  # 16: past the escape
                           lambda hs: len(hs) >= 2, reach_from_start=True)
    # No ``is_texty`` test: an escape is lossless, so the decoded window is the text a reader sees,
    # however much of it is indentation, keys and markup (round 170 of benchmarks/model_selection.md).
    return [Encoded(a, b, kind, decode(text[a:min(b, a + MAX_DECODE_CHARS)]), hides=any(hs))
            for a, b, hs in windows]


def _pct_stretch(run: str) -> str:
    """The decoded part of a URL run from its first to its last escape: a percent-encoded query
    value read without the plain address or CSV fields before it (the whole run may be mostly
    ASCII while the value is Chinese prose)."""
    a, b = run.find("%"), run.rfind("%") + 3
    try:
        return unquote_plus(run[a:b][:MAX_DECODE_CHARS], errors="strict")
    except UnicodeDecodeError:
        return ""


_ROT13 = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "nopqrstuvwxyzabcdefghijklmNOPQRSTUVWXYZABCDEFGHIJKLM",
)


def rot13(s: str) -> str:
    return s.translate(_ROT13)
