#!/usr/bin/env python3
"""Build corpus/corpus.jsonl from the authored and generated records.

Reads ``corpus/authored/*.jsonl``, ``corpus/generated.jsonl`` and the spent holdout files named in
``corpus/holdout/TRAINING`` (train-split records, see ``spent.py``), validates every record against
corpus/SPEC.md (errors name the file and line; duplicate ids and duplicate texts are errors),
assigns ``split`` per group (SHA-256 of the group name, 60/20/20; a group with a record in a
test-only carrier goes wholly to test), and writes:

* ``corpus/corpus.jsonl``: sorted by id, fields in the order
  id, text, label, family, lang, carrier, split, source, group;
* ``corpus/STATS.md``: generated tables (label, family, language, carrier, split, label x split,
  targets);
* the headline totals table in ``corpus/README.md`` between ``<!-- stats:begin -->`` and
  ``<!-- stats:end -->``.

It prints a summary and checks the corpus targets.

Usage::

    python corpus/tools/build.py            # rebuild; exit 1 on invalid records, 2 if a target is unmet
    python corpus/tools/build.py --check    # exit 1 if corpus.jsonl / STATS.md / README block are stale
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from splits import SPLITS, TEST_ONLY_CARRIERS, assign_group_splits
from spent import SpentError, spent_records
from taxonomy import BENIGN_KINDS, CARRIERS, FAMILIES

CORPUS_DIR = HERE.parent
REPO_ROOT = CORPUS_DIR.parent
AUTHORED_DIR = CORPUS_DIR / "authored"
GENERATED = CORPUS_DIR / "generated.jsonl"
OUT = CORPUS_DIR / "corpus.jsonl"
STATS = CORPUS_DIR / "STATS.md"
README = CORPUS_DIR / "README.md"
STATS_BEGIN = "<!-- stats:begin -->"
STATS_END = "<!-- stats:end -->"

INPUT_FIELDS = ("id", "text", "label", "family", "lang", "carrier", "group", "source")
OUTPUT_FIELDS = ("id", "text", "label", "family", "lang", "carrier", "split", "source", "group")
# ISO 639-1 two-letter codes
ISO_639_1 = frozenset("""
aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz
ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik
io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml
mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd
se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi
vo wa wo xh yi yo za zh zu
""".split())
ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*-\d+$")
GROUP_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/#~+\-]{0,159}$")
MAX_TEXT = 20_000

TARGETS = (
    ("records", ">= 3,000 records"),
    ("benign", ">= 40% benign"),
    ("languages", ">= 10 languages"),
    ("non_en", ">= 15% non-English"),
    ("zh", ">= 5% Chinese"),
    ("authored", ">= 600 authored records"),
    ("test_carriers", "test split has carriers train has not"),
    ("test_groups", "test split has groups train has not"),
)


class BuildError(Exception):
    """Raised with every validation problem found (one per line of the message)."""


@dataclass
class Loaded:
    record: dict[str, Any]
    where: str  # "corpus/authored/zh.jsonl:12"


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


def validate_record(rec: Any, *, generated_file: bool) -> list[str]:
    """Return the problems of one parsed record (empty list if it is valid)."""
    if not isinstance(rec, dict):
        return [f"expected a JSON object, got {type(rec).__name__}"]
    problems: list[str] = []
    if "split" in rec:
        problems.append("field 'split' must not be written by authors (build.py assigns it)")
    missing = [f for f in INPUT_FIELDS if f not in rec]
    if missing:
        problems.append(f"missing field(s): {', '.join(missing)}")
    unknown = sorted(set(rec) - set(INPUT_FIELDS) - {"split"})
    if unknown:
        problems.append(f"unknown field(s): {', '.join(unknown)}")
    for f in INPUT_FIELDS:
        if f in rec and f != "label" and not isinstance(rec[f], str):
            problems.append(f"field '{f}' must be a string, got {type(rec[f]).__name__}")
    if problems:
        return problems
    rid, text, label, family = rec["id"], rec["text"], rec["label"], rec["family"]
    if not ID_RE.match(rid):
        problems.append(f"id {rid!r} is not of the form <file-prefix>-<n> (lowercase letters, digits, dashes)")
    if not text.strip():
        problems.append("text is empty")
    elif len(text) > MAX_TEXT:
        problems.append(f"text is {len(text)} characters long (max {MAX_TEXT})")
    if type(label) is not int or label not in (0, 1):
        problems.append(f"label must be the integer 0 or 1, got {label!r}")
    elif label == 1:
        if family not in FAMILIES:
            problems.append(f"label 1 needs an attack family ({', '.join(FAMILIES)}), got {family!r}")
    else:
        kind = family[len("benign:"):] if family.startswith("benign:") else None
        if kind not in BENIGN_KINDS:
            problems.append(f"label 0 needs family 'benign:<kind>' with kind in ({', '.join(BENIGN_KINDS)}), got {family!r}")
    if rec["lang"] not in ISO_639_1:
        problems.append(f"lang {rec['lang']!r} is not a lowercase ISO 639-1 code")
    if rec["carrier"] not in CARRIERS:
        problems.append(f"carrier {rec['carrier']!r} is not one of: {', '.join(CARRIERS)}")
    if not GROUP_RE.match(rec["group"]):
        problems.append(f"group {rec['group']!r} is not a short slug (letters, digits, _ . : / # ~ + -; max 160 chars)")
    source = rec["source"]
    if generated_file:
        if not source.startswith("generated:") or len(source) <= len("generated:"):
            problems.append(f"source must be 'generated:<script path>' in generated.jsonl, got {source!r}")
    elif source != "authored":
        problems.append(f"source must be 'authored' in corpus/authored/*.jsonl, got {source!r}")
    return problems


def input_files() -> list[Path]:
    files = sorted(AUTHORED_DIR.glob("*.jsonl")) if AUTHORED_DIR.is_dir() else []
    return files + [GENERATED]


def load_records(files: list[Path] | None = None) -> list[Loaded]:
    """Read and validate all input files (by default, with the spent holdout records of
    ``spent.py``); raise BuildError listing every problem."""
    with_spent = files is None
    files = input_files() if files is None else files
    errors: list[str] = []
    loaded: list[Loaded] = []
    ids: dict[str, str] = {}
    texts: dict[str, str] = {}

    def admit(rec: Any, where: str, generated_file: bool) -> None:
        """Validate one parsed record; keep it unless it is invalid or repeats an id or a text."""
        problems = validate_record(rec, generated_file=generated_file)
        if problems:
            errors.extend(f"{where}: {p}" for p in problems)
            return
        if rec["id"] in ids:
            errors.append(f"{where}: duplicate id {rec['id']!r} (first seen at {ids[rec['id']]})")
            return
        ids[rec["id"]] = where
        key = rec["text"].strip()
        if key in texts:
            errors.append(f"{where}: duplicate text (same text as {texts[key]})")
            return
        texts[key] = where
        loaded.append(Loaded(rec, where))

    for path in files:
        rel = _rel(path)
        if not path.exists():
            hint = " (run: python corpus/tools/generate.py)" if path == GENERATED else ""
            errors.append(f"{rel}: file not found{hint}")
            continue
        raw = path.read_bytes()
        try:
            content = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            errors.append(f"{rel}: not valid UTF-8 ({exc})")
            continue
        lines = content.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        for lineno, line in enumerate(lines, 1):
            where = f"{rel}:{lineno}"
            if not line.strip():
                errors.append(f"{where}: blank line (JSONL needs one JSON object per line)")
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                errors.append(f"{where}: invalid JSON ({exc.msg} at column {exc.colno})")
                continue
            admit(rec, where, path == GENERATED)
    if with_spent:
        try:
            spent = spent_records()
        except SpentError as exc:
            spent = []
            errors.append(str(exc))
        for rec, _inj, where in spent:
            admit(rec, where, False)
    if errors:
        raise BuildError("\n".join(errors))
    return loaded


def build_corpus(loaded: list[Loaded]) -> list[dict[str, Any]]:
    """Assign splits per group and return the output records sorted by id."""
    recs = [item.record for item in loaded]
    splits = assign_group_splits(recs)
    out = []
    for rec in sorted(recs, key=lambda r: r["id"]):
        full = dict(rec, split=splits[rec["group"]])
        out.append({f: full[f] for f in OUTPUT_FIELDS})
    return out


def corpus_text(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


# ----------------------------------------------------------------------------------------------
# Statistics and targets
# ----------------------------------------------------------------------------------------------

def _pct(n: int, total: int) -> str:
    return f"{100.0 * n / total:.1f}%" if total else "0.0%"


def compute_targets(records: list[dict[str, Any]]) -> list[tuple[str, str, str, bool]]:
    """Return (key, description, observed value, ok) for each corpus target."""
    n = len(records)
    benign = sum(1 for r in records if r["label"] == 0)
    langs = {r["lang"] for r in records}
    non_en = sum(1 for r in records if r["lang"] != "en")
    zh = sum(1 for r in records if r["lang"] == "zh")
    authored = sum(1 for r in records if r["source"] == "authored")
    train_carriers = {r["carrier"] for r in records if r["split"] == "train"}
    test_carriers = {r["carrier"] for r in records if r["split"] == "test"}
    train_groups = {r["group"] for r in records if r["split"] == "train"}
    test_groups = {r["group"] for r in records if r["split"] == "test"}
    only_test_carriers = sorted(test_carriers - train_carriers)
    only_test_groups = test_groups - train_groups
    values = {
        "records": (f"{n:,}", n >= 3000),
        "benign": (_pct(benign, n), n > 0 and benign / n >= 0.40),
        "languages": (str(len(langs)), len(langs) >= 10),
        "non_en": (_pct(non_en, n), n > 0 and non_en / n >= 0.15),
        "zh": (_pct(zh, n), n > 0 and zh / n >= 0.05),
        "authored": (f"{authored:,}", authored >= 600),
        "test_carriers": (", ".join(only_test_carriers) or "none", bool(only_test_carriers)),
        "test_groups": (f"{len(only_test_groups):,} groups", bool(only_test_groups)),
    }
    return [(key, desc, values[key][0], values[key][1]) for key, desc in TARGETS]


def _table(header: tuple[str, ...], rows: list[tuple[Any, ...]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _count_table(records: list[dict[str, Any]], key: str, title: str, order: tuple[str, ...] | None = None) -> str:
    n = len(records)
    counts = Counter(r[key] for r in records)
    keys = [k for k in (order or ()) if k in counts] + sorted(k for k in counts if not order or k not in order)
    if order is None:
        keys = sorted(counts, key=lambda k: (-counts[k], str(k)))
    rows = [(f"`{k}`", counts[k], _pct(counts[k], n)) for k in keys]
    return _table((title, "records", "share"), rows)


def headline_table(records: list[dict[str, Any]]) -> str:
    n = len(records)
    benign = sum(1 for r in records if r["label"] == 0)
    authored = sum(1 for r in records if r["source"] == "authored")
    split_counts = Counter(r["split"] for r in records)
    rows = [
        ("records", f"{n:,}"),
        ("injections (label 1)", f"{n - benign:,} ({_pct(n - benign, n)})"),
        ("benign (label 0)", f"{benign:,} ({_pct(benign, n)})"),
        ("authored / generated", f"{authored:,} / {n - authored:,}"),
        ("languages", str(len({r['lang'] for r in records}))),
        ("non-English", f"{sum(1 for r in records if r['lang'] != 'en'):,} ({_pct(sum(1 for r in records if r['lang'] != 'en'), n)})"),
        ("Chinese", f"{sum(1 for r in records if r['lang'] == 'zh'):,} ({_pct(sum(1 for r in records if r['lang'] == 'zh'), n)})"),
        ("carriers", str(len({r['carrier'] for r in records}))),
        ("groups", f"{len({r['group'] for r in records}):,}"),
        ("train / dev / test", " / ".join(f"{split_counts.get(s, 0):,}" for s in SPLITS)),
    ]
    return _table(("", "value"), rows)


def stats_markdown(records: list[dict[str, Any]]) -> str:
    n = len(records)
    parts = [
        "# Corpus statistics",
        "",
        "Generated by `corpus/tools/build.py` from `corpus/corpus.jsonl`; do not edit by hand.",
        "",
        "## Totals",
        "",
        headline_table(records),
        "",
        "## Label",
        "",
        _table(("label", "records", "share"), [(lbl, c, _pct(c, n)) for lbl, c in sorted(Counter(r["label"] for r in records).items())]),
        "",
        "## Family",
        "",
        _count_table(records, "family", "family", FAMILIES + tuple(f"benign:{k}" for k in BENIGN_KINDS)),
        "",
        "## Language",
        "",
        _count_table(records, "lang", "lang"),
        "",
        "## Carrier",
        "",
        _count_table(records, "carrier", "carrier"),
        "",
        "## Split",
        "",
        _count_table(records, "split", "split", SPLITS),
        "",
        "## Label x split",
        "",
    ]
    ls = Counter((r["label"], r["split"]) for r in records)
    rows = [(lbl, *(ls.get((lbl, s), 0) for s in SPLITS), sum(ls.get((lbl, s), 0) for s in SPLITS)) for lbl in (0, 1)]
    rows.append(("total", *(sum(ls.get((lbl, s), 0) for lbl in (0, 1)) for s in SPLITS), n))
    parts.append(_table(("label", *SPLITS, "total"), rows))
    parts += ["", "## Source x split", ""]
    ss = Counter(("authored" if r["source"] == "authored" else "generated", r["split"]) for r in records)
    parts.append(_table(("source", *SPLITS), [(src, *(ss.get((src, s), 0) for s in SPLITS)) for src in ("authored", "generated")]))
    parts += ["", "## Language x split", ""]
    lsp = Counter((r["lang"], r["split"]) for r in records)
    langs = sorted({r["lang"] for r in records}, key=lambda l: (-sum(lsp.get((l, s), 0) for s in SPLITS), l))
    parts.append(_table(("lang", *SPLITS), [(f"`{l}`", *(lsp.get((l, s), 0) for s in SPLITS)) for l in langs]))
    parts += ["", f"Test-only carriers: {', '.join(f'`{c}`' for c in sorted(TEST_ONLY_CARRIERS))}.", "", "## Targets", ""]
    parts.append(_table(("target", "observed", "status"), [(desc, val, "ok" if ok else "NOT MET") for _, desc, val, ok in compute_targets(records)]))
    return "\n".join(parts) + "\n"


def readme_with_stats(readme: str, records: list[dict[str, Any]]) -> str | None:
    """README text with the headline table between the markers (None if the markers are absent)."""
    start, end = readme.find(STATS_BEGIN), readme.find(STATS_END)
    if start < 0 or end < start:
        return None
    block = f"{STATS_BEGIN}\n{headline_table(records)}\n{STATS_END}"
    return readme[:start] + block + readme[end + len(STATS_END):]


# ----------------------------------------------------------------------------------------------
# Main
# ----------------------------------------------------------------------------------------------

def expected_outputs() -> tuple[list[dict[str, Any]], dict[Path, str]]:
    """Validate inputs and return (records, {path: expected file content})."""
    records = build_corpus(load_records())
    outputs = {OUT: corpus_text(records), STATS: stats_markdown(records)}
    if README.exists():
        updated = readme_with_stats(README.read_text(encoding="utf-8"), records)
        if updated is not None:
            outputs[README] = updated
    return records, outputs


def print_summary(records: list[dict[str, Any]]) -> bool:
    n = len(records)
    print(f"corpus: {n:,} records")
    for label, name in ((1, "injections"), (0, "benign")):
        c = sum(1 for r in records if r["label"] == label)
        print(f"  {name:<11} {c:>6,}  {_pct(c, n):>6}")
    sc = Counter(r["split"] for r in records)
    print("  splits      " + "  ".join(f"{s}={sc.get(s, 0):,}" for s in SPLITS))
    src = Counter("authored" if r["source"] == "authored" else "generated" for r in records)
    print(f"  sources     authored={src.get('authored', 0):,}  generated={src.get('generated', 0):,}")
    lc = Counter(r["lang"] for r in records)
    print("  languages   " + " ".join(f"{l}={c}" for l, c in sorted(lc.items(), key=lambda kv: (-kv[1], kv[0]))))
    print("targets:")
    all_ok = True
    for _, desc, val, ok in compute_targets(records):
        all_ok &= ok
        print(f"  [{'ok' if ok else 'NOT MET'}] {desc}: {val}")
    return all_ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Validate and build corpus/corpus.jsonl, STATS.md and the README stats block.")
    ap.add_argument("--check", action="store_true", help="do not write; exit 1 if the outputs differ from a rebuild")
    args = ap.parse_args(argv)
    try:
        records, outputs = expected_outputs()
    except BuildError as exc:
        print("corpus build failed: invalid input records", file=sys.stderr)
        print(str(exc), file=sys.stderr)
        return 1
    if args.check:
        stale = [p for p, content in outputs.items() if not p.exists() or p.read_text(encoding="utf-8") != content]
        if stale:
            for p in stale:
                print(f"stale: {_rel(p)} differs from a rebuild (run: python corpus/tools/build.py)", file=sys.stderr)
            return 1
        print(f"ok: {', '.join(_rel(p) for p in outputs)} up to date ({len(records):,} records)")
        return 0
    for path, content in outputs.items():
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(content)
    if README.exists() and README not in outputs:
        print(f"warning: {_rel(README)} has no {STATS_BEGIN} ... {STATS_END} markers; stats block not updated", file=sys.stderr)
    print(f"wrote {', '.join(_rel(p) for p in outputs)}")
    ok = print_summary(records)
    if not ok:
        print("some corpus targets are not met (see above)", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
