"""What the engine derives from each rule pattern, computed once by ``rules check`` and shipped.

Before a rule's windows are searched the scanner needs four analyses of each of its patterns
(:mod:`toolbound._detect.needs`: the literals every match holds, the strings every match starts
with, the scripts a match needs, the fewest characters it spans) and the RE2 source of the rule's
superset (:func:`toolbound._detect.superset.to_re2`). All five are pure functions of the pattern and
of the code of ``needs.py`` and ``superset.py``, and together they cost about 1.6 ms per pattern:
4.6 s over the 2,780 shipped patterns, which a process paid bit by bit in its first few hundred
distinct texts (the first 250 benign 4 KB chunks of a fresh process took 21.5 ms each against
3 ms warm, two thirds of it in these analyses; session 45).

So ``toolbound rules check --write-checked`` also writes :data:`ANALYSIS_FILE` beside the packs: per
pattern key (:func:`~toolbound._detect.packs.pattern_key`), the five results as compressed JSON. The
file names a :func:`fingerprint` of the code that computed it (this module, ``needs.py`` and
``superset.py``); a scanner uses it only while that
fingerprint is the running code's, and only for the patterns it names. Anything else (a pattern
edited since, a file that is missing, unreadable or written by other code) is computed as before:
a stale file costs time, never a finding. ``tests/test_detect_analysis.py`` keeps the shipped file
equal, pattern by pattern, to what the code computes now.

The file is JSON with one pattern per line (sorted by key), so a rule edit changes a few lines of it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import zlib
from collections.abc import Iterable
from pathlib import Path

from toolbound._detect.needs import (Needs, ScriptNeeds, first_literals, min_width, required_literals,
                                     required_scripts)
from toolbound._detect.packs import Rule, pattern_key

__all__ = ["ANALYSIS_FILE", "Analysis", "PatternAnalyses", "analyse", "fingerprint", "read_file",
           "stale_keys", "write_file"]

ANALYSIS_FILE = "pattern_analysis.json"
FORMAT = 1
_CODE = ("analysis.py", "needs.py", "superset.py")  # the code that computes and encodes every entry

Analysis = tuple[Needs, tuple[str, ...] | None, ScriptNeeds, int, str | None]
"""``(required literals, first literals, required scripts, minimum width, RE2 superset source or None
when the pattern has none)`` of one pattern."""

_fingerprint: list[str | None] = []


def fingerprint() -> str | None:
    """A digest of the code that computes the analyses (None when its source cannot be read, as in a
    build without ``.py`` files: every pattern is then analysed at run time)."""
    if not _fingerprint:
        h = hashlib.sha256(f"toolbound pattern analysis {FORMAT}\n".encode())
        try:
            for name in _CODE:
                h.update(Path(__file__).with_name(name).read_bytes())
            _fingerprint.append(h.hexdigest()[:32])
        except OSError:
            _fingerprint.append(None)
    return _fingerprint[0]


def analyse(pattern: str) -> Analysis:
    """The five analyses of ``pattern``, computed now."""
    from toolbound._detect.superset import to_re2

    try:
        src: str | None = to_re2(pattern)
    except Exception:  # noqa: BLE001 - Unconvertible and anything else: the rule has no superset
        src = None
    return (required_literals(pattern), first_literals(pattern), required_scripts(pattern),
            min_width(pattern), src)


def _encode(a: Analysis) -> str:
    needs, firsts, scripts, minw, src = a
    plain = json.dumps([[list(g) for g in needs], None if firsts is None else list(firsts),
                        sorted(sorted(g) for g in scripts), minw, src],
                       ensure_ascii=False, separators=(",", ":"))
    return base64.b64encode(zlib.compress(plain.encode("utf-8"), 9)).decode("ascii")


def _decode(blob: str) -> Analysis:
    needs, firsts, scripts, minw, src = json.loads(zlib.decompress(base64.b64decode(blob)))
    return (tuple(tuple(g) for g in needs), None if firsts is None else tuple(firsts),
            frozenset(frozenset(g) for g in scripts), int(minw), src)


def write_file(directory: str | Path, rules: Iterable[Rule]) -> Path:
    """Write ``directory``'s :data:`ANALYSIS_FILE` for every pattern of ``rules`` (``rules check
    --write-checked`` calls it after a clean check)."""
    pats = {pattern_key(p): p for r in rules for p in r.patterns}
    lines = [f"{json.dumps(k)}:{json.dumps(_encode(analyse(pats[k])))}" for k in sorted(pats)]
    about = ("What toolbound derives from each rule pattern (toolbound/_detect/analysis.py); "
             "rewrite with `toolbound rules check --write-checked`.")
    head = json.dumps({"about": about,
                       "format": FORMAT, "fingerprint": fingerprint()}, separators=(", ", ": "))
    path = Path(directory) / ANALYSIS_FILE
    path.write_text(head[:-1] + ', "patterns": {\n' + ",\n".join(lines) + "\n}}\n", encoding="utf-8")
    return path


def read_file(directory: str | Path) -> dict[str, str]:
    """The encoded entries of ``directory``'s :data:`ANALYSIS_FILE` by pattern key; empty when the
    file is missing, unreadable, or was written by code other than the running code."""
    if fingerprint() is None:
        return {}
    try:
        data = json.loads((Path(directory) / ANALYSIS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("fingerprint") != fingerprint():
        return {}
    pats = data.get("patterns")
    return {k: v for k, v in pats.items() if isinstance(v, str)} if isinstance(pats, dict) else {}


def stale_keys(directory: str | Path, rules: Iterable[Rule]) -> list[str]:
    """Keys of the patterns of ``rules`` that the folder's file does not hold for the running code."""
    have = read_file(directory)
    return sorted({pattern_key(p) for r in rules for p in r.patterns} - have.keys())


class PatternAnalyses:
    """The analyses of the patterns of ``rules``: read from their packs' folders' files when the
    scanner first asks (the file is read once, an entry decoded when its pattern is first asked),
    else computed. Thread-safe: two threads asking for one pattern store equal results."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        self._dirs = sorted({str(Path(r.source).parent) for r in rules if r.patterns})
        self._shipped: dict[str, str] | None = None
        self._done: dict[str, Analysis] = {}
        self._lock = threading.Lock()

    def _entries(self) -> dict[str, str]:
        if self._shipped is None:
            with self._lock:
                if self._shipped is None:
                    merged: dict[str, str] = {}
                    for d in self._dirs:
                        merged.update(read_file(d))
                    self._shipped = merged
        return self._shipped

    def get(self, pattern: str) -> Analysis:
        """``pattern``'s analyses (shipped when the file holds them for this code, else computed)."""
        a = self._done.get(pattern)
        if a is None:
            blob = self._entries().get(pattern_key(pattern))
            a = None
            if blob is not None:
                try:
                    a = _decode(blob)
                except (ValueError, TypeError, zlib.error):
                    a = None  # a damaged entry is computed instead
            if a is None:
                a = analyse(pattern)
            self._done[pattern] = a
        return a

    def re2_source(self, pattern: str) -> str:
        """The RE2 superset source of ``pattern`` (raises ``Unconvertible`` when it has none)."""
        from toolbound._detect.superset import Unconvertible

        src = self.get(pattern)[4]
        if src is None:
            raise Unconvertible(pattern)
        return src

    def shipped_count(self) -> int:
        """How many patterns the folders' files hold for this code."""
        return len(self._entries())
