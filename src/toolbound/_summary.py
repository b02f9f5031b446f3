"""Short extractive summaries of oversized results: no model call, fast, deterministic.

JSON: the shape, e.g. ``list of 1,240 objects with keys id, title, status; id 1–1,240; status:
open 800, closed 440`` (low-cardinality string fields are counted, integer fields give a range).
Text: size, headings and leading sentences. CSV/TSV text: the columns and the number of rows.

The one-line summary is shown to the model *outside* the quarantine markers, so it carries only
structure: key names (already visible in the rendered data), counts, and values that look like
identifiers (``open``, ``P1``, ``en-US``: at most 32 characters of letters, digits and ``_.-:/#+@``,
no spaces), which cannot carry an instruction. Leading sentences and headings of a text appear in
the line only when the text is not external (``external=False``); otherwise they are kept in the
detail (``meta``) for programs, never in front of the model.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

_IDENTLIKE = re.compile(r"[A-Za-z0-9_.:/#+@-]{1,32}\Z")
_NAMELIKE = re.compile(r"[\w .()/#%-]{1,32}\Z")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
MAX_KEYS = 10
MAX_FIELDS = 3
MAX_VALUES = 5
SCAN_LIMIT = 200_000  # items looked at for field statistics (counts themselves are exact)
TEXT_SCAN = 64 * 1024  # characters of a text looked at for headings and sentences


@dataclass
class Summary:
    line: str
    detail: dict[str, Any] = field(default_factory=dict)


def _n(x: int) -> str:
    return f"{x:,}"


def _kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "list"
    return "object"


_PLURAL = {"null": "nulls", "boolean": "booleans", "number": "numbers", "string": "strings",
           "list": "lists", "object": "objects"}


def _name(k: str) -> str:
    """A key or column name as shown in the summary line (names that are not name-like are
    replaced by a count)."""
    return k if _NAMELIKE.match(k) and len(k.split()) <= 4 else "?"


def summarize(value: Any, *, external: bool = True) -> Summary:
    """Summarise a JSON value (a top-level string is summarised as text)."""
    if isinstance(value, str):
        return summarize_text(value, external=external)
    if isinstance(value, list):
        line, detail = _list(value)
        return Summary(line, detail)
    if isinstance(value, dict):
        return _object(value)
    return Summary(f"a single {_kind(value)}", {"kind": _kind(value)})


def _keys_phrase(keys: list[str]) -> str:
    shown = [_name(k) for k in keys[:MAX_KEYS]]
    more = len(keys) - len(shown)
    return ", ".join(shown) + (f" and {_n(more)} more" if more > 0 else "")


def _list(items: list[Any]) -> tuple[str, dict[str, Any]]:
    n = len(items)
    if n == 0:
        return "empty list", {"kind": "list", "count": 0}
    kinds = Counter(_kind(v) for v in items)
    detail: dict[str, Any] = {"kind": "list", "count": n, "item_types": dict(kinds)}
    if len(kinds) == 1:
        k = next(iter(kinds))
        head = f"list of {_n(n)} {_PLURAL[k] if n != 1 else k}"
    else:
        head = f"list of {_n(n)} items (" + ", ".join(
            f"{_n(c)} {_PLURAL[k] if c != 1 else k}" for k, c in kinds.most_common()) + ")"
    parts = [head]
    if kinds.get("object"):
        keys, fields, ranges = _field_stats([v for v in items[:SCAN_LIMIT] if isinstance(v, dict)])
        detail["keys"] = keys
        if keys:
            parts[0] += " with keys " + _keys_phrase(keys)
        for name, (lo, hi) in ranges.items():
            parts.append(f"{_name(name)} {_n(lo)}–{_n(hi)}")
            detail.setdefault("ranges", {})[name] = [lo, hi]
        for name, counts in fields.items():
            vals = ", ".join(f"{v} {_n(c)}" for v, c in counts)
            parts.append(f"{_name(name)}: {vals}")
            detail.setdefault("fields", {})[name] = dict(counts)
    elif kinds.get("string") == n:
        lengths = [len(s) for s in items[:SCAN_LIMIT]]
        detail["string_chars"] = {"min": min(lengths), "max": max(lengths)}
        parts.append(f"{_n(min(lengths))}–{_n(max(lengths))} characters each")
    return "; ".join(parts), detail


def _field_stats(objs: list[dict[str, Any]]) -> tuple[list[str], dict[str, list[tuple[str, int]]],
                                                       dict[str, tuple[int, int]]]:
    keys: dict[str, int] = {}
    for o in objs:
        for k in o:
            keys[k] = keys.get(k, 0) + 1
    total = len(objs)
    fields: dict[str, list[tuple[str, int]]] = {}
    ranges: dict[str, tuple[int, int]] = {}
    for k, seen in keys.items():
        if seen * 2 < total:
            continue
        vals = [o[k] for o in objs if k in o]
        if len(ranges) < 2 and all(type(v) is int for v in vals) and len(set(vals[:1000])) > 1:
            ranges[k] = (min(vals), max(vals))
            continue
        if len(fields) >= MAX_FIELDS or not all(isinstance(v, str) for v in vals):
            continue
        counts = Counter(vals)
        if len(counts) > 8 or len(counts) * 2 > len(vals) or len(vals) < 4:
            continue
        if not all(_IDENTLIKE.match(v) for v in counts):
            continue
        top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_VALUES]
        fields[k] = top
    return list(keys), fields, ranges


def _object(obj: dict[str, Any]) -> Summary:
    keys = list(obj)
    detail: dict[str, Any] = {"kind": "object", "keys": keys[:200], "key_count": len(keys)}
    line = f"object with {_n(len(keys))} key{'s' if len(keys) != 1 else ''}"
    if keys:
        line += ": " + _keys_phrase(keys)
    # Describe the largest list member, where the bulk usually is.
    biggest = None
    for k, v in obj.items():
        if isinstance(v, list) and (biggest is None or len(v) > len(obj[biggest])):
            biggest = k
    if biggest is not None and obj[biggest]:
        sub, sub_detail = _list(obj[biggest])
        line += f"; {_name(biggest)}: {sub}"
        detail["largest_list"] = {"key": biggest, **sub_detail}
    return Summary(line, detail)


# --- text ---------------------------------------------------------------------------------------


def detect_table(text: str) -> str | None:
    """The delimiter of CSV/TSV-like text (``,``, tab, ``;`` or ``|``), or None."""
    lines = text[:TEXT_SCAN].split("\n", 8)[:8]
    if len(lines) < 3:
        return None
    body = [ln for ln in lines[1:-1] if ln.strip()] or lines[1:2]
    for d in ("\t", ",", ";", "|"):
        want = lines[0].count(d)
        if want < 1:
            continue
        same = sum(1 for ln in body if ln.count(d) == want)
        if same * 10 >= len(body) * 6:
            return d
    return None


def summarize_text(text: str, *, external: bool = True) -> Summary:
    nlines = text.count("\n") + 1
    detail: dict[str, Any] = {"kind": "text", "chars": len(text), "lines": nlines}
    delim = detect_table(text)
    if delim is not None:
        header = text.split("\n", 1)[0].rstrip("\r")
        cols = [c.strip().strip('"') for c in header.split(delim)]
        rows = nlines - 1 - (1 if text.endswith("\n") else 0)
        detail.update(kind="table", delimiter=delim, columns=cols, rows=rows)
        names = ", ".join(_name(c) for c in cols[:MAX_KEYS])
        more = len(cols) - min(len(cols), MAX_KEYS)
        kind = "TSV" if delim == "\t" else "CSV"
        return Summary(f"{kind} table of {_n(rows)} rows with columns {names}"
                       + (f" and {_n(more)} more" if more > 0 else ""), detail)
    head = text[:TEXT_SCAN]
    headings = []
    for ln in head.split("\n"):
        s = ln.strip()
        if s.startswith("#") and s.lstrip("#").startswith(" "):
            headings.append(s.lstrip("#").strip()[:80])
            if len(headings) >= 5:
                break
    lead = _lead_sentences(head)
    detail["headings"] = headings
    detail["lead"] = lead
    line = f"text of {_n(len(text))} characters in {_n(nlines)} line{'s' if nlines != 1 else ''}"
    if not external:
        if headings:
            line += "; headings: " + " | ".join(headings)
        if lead:
            line += "; begins: " + " ".join(lead)
    elif headings or lead:
        line += f"; {len(headings)} heading(s) near the start (quoted text below)"
    return Summary(line, detail)


def _lead_sentences(text: str, n: int = 2, limit: int = 240) -> list[str]:
    para = []
    for ln in text.split("\n"):
        s = ln.strip()
        if not s:
            if para:
                break
            continue
        if s.startswith("#"):
            if para:
                break
            continue
        para.append(s)
        if sum(len(p) for p in para) > limit * 2:
            break
    joined = " ".join(para)
    out: list[str] = []
    for sent in _SENTENCE_END.split(joined):
        if not sent:
            continue
        out.append(sent[:limit])
        if len(out) >= n:
            break
    return out
