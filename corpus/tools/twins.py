#!/usr/bin/env python3
"""Where the injection is in each injection of a split, and its benign twin: ``corpus/twins_<split>.jsonl``.

``corpus/spans_<split>.jsonl`` (session 9, rounds 21-22 of ``benchmarks/model_selection.md``) holds,
for the split's injections, the character spans of the injected instruction as annotators marked
them, and whether deleting those spans leaves an ordinary document. One JSON object per line:

    {"id": "tr7a-0012", "sha": "<first 16 hex of SHA-256 of the record's text>",
     "spans": [[start, end], ...], "twin": true, "note": ""}

Offsets are Python string indices into the record's ``text``; ``sha`` ties the annotation to the
text it was made on (a record whose text changes must be annotated again). ``spans`` is empty when
the annotator found no instruction aimed at an AI reader (``note`` says why); such records keep their
label and get no twin.

A **twin** is the injection with its spans deleted (lines left blank are collapsed): the same
carrier, boilerplate and register, without the attack, so a model cannot learn the carrier as a
sign of injection. This script writes the twins as benign train-only records (``label`` 0,
``family`` ``benign:twin``, the original's ``group`` so a twin and its original always fall in
the same cross-validation fold, ``split`` the original's, ``source``
``generated:corpus/tools/twins.py``).

    python corpus/tools/twins.py            # write corpus/twins_<split>.jsonl for every spans file
    python corpus/tools/twins.py --check    # fail if a twins file is not what the script produces

Training reads the train split's files (``python -m toolbound._detect.train``, its ``USE_TWINS`` and
``SPAN_SUPERVISION`` options); the dev twins join dev in model selection
(``benchmarks/model_selection.md``, round 22) and the test twins are an evaluation set
(``toolbound bench --data corpus/twins_test.jsonl``). The corpus statistics never read them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "corpus.jsonl"
SPLITS = ("train", "dev", "test")
SPANS = HERE.parent / "spans_train.jsonl"
DEFAULT_OUT = HERE.parent / "twins_train.jsonl"


def spans_path(split: str) -> Path:
    return HERE.parent / f"spans_{split}.jsonl"


def twins_path(split: str) -> Path:
    return HERE.parent / f"twins_{split}.jsonl"
SOURCE = "generated:corpus/tools/twins.py"
TWIN_FAMILY = "benign:twin"
MIN_TWIN_CHARS = 40
"""A twin shorter than this (the injection was nearly the whole text) is not written."""


class SpanError(ValueError):
    """The span file does not fit the corpus (names the file, line and record)."""


def text_sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def load_spans(path: Path, records: Iterable[dict[str, Any]], split: str = "train") -> dict[str, dict[str, Any]]:
    """The annotations of ``path`` by record id, checked against ``records`` (the corpus): each must
    be an injection of ``split``."""
    by_id = {r["id"]: r for r in records}
    out: dict[str, dict[str, Any]] = {}
    try:
        fh = open(path, encoding="utf-8")
    except OSError as e:
        raise SpanError(f"{path}: cannot read ({e.strerror})") from None
    with fh:
        for no, line in enumerate(fh, 1):
            line = line.strip()
            if not line:
                continue
            where = f"{path}:{no}"
            try:
                a = json.loads(line)
            except json.JSONDecodeError as e:
                raise SpanError(f"{where}: not JSON ({e.msg})") from None
            rid = a.get("id")
            rec = by_id.get(rid)
            if rec is None:
                raise SpanError(f"{where}: record {rid!r} is not in the corpus")
            if rec["split"] != split or int(rec["label"]) != 1:
                raise SpanError(f"{where}: record {rid} is not a {split}-split injection")
            if rid in out:
                raise SpanError(f"{where}: record {rid} is annotated twice")
            if a.get("sha") != text_sha(rec["text"]):
                raise SpanError(f"{where}: record {rid}'s text changed since it was annotated: annotate it again")
            spans = a.get("spans")
            n = len(rec["text"])
            if (not isinstance(spans, list) or not all(
                    isinstance(s, list) and len(s) == 2 and all(isinstance(x, int) for x in s) and 0 <= s[0] < s[1] <= n
                    for s in spans)):
                raise SpanError(f"{where}: record {rid}: spans must be [start, end] pairs inside its text ({n} chars)")
            if not isinstance(a.get("twin"), bool):
                raise SpanError(f"{where}: record {rid}: twin must be true or false")
            out[rid] = {"spans": sorted((s, e) for s, e in spans), "twin": a["twin"] and bool(spans),
                        "note": str(a.get("note", ""))}
    return out


def make_twin(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """``text`` without ``spans``; trailing blanks of lines and runs of blank lines left by the
    deletion collapsed."""
    parts, pos = [], 0
    for s, e in sorted(spans):
        parts.append(text[pos:max(pos, s)])
        pos = max(pos, e)
    parts.append(text[pos:])
    out = re.sub(r"[ \t]+\n", "\n", "".join(parts))
    return re.sub(r"\n{3,}", "\n\n", out).strip()


def twin_records(records: list[dict[str, Any]], spans: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The benign twins, in corpus order."""
    out = []
    for r in records:
        a = spans.get(r["id"])
        if a is None or not a["twin"]:
            continue
        t = make_twin(r["text"], a["spans"])
        if len(t) < MIN_TWIN_CHARS:
            continue
        out.append({"id": f"twin-{r['id']}", "text": t, "label": 0, "family": TWIN_FAMILY, "lang": r["lang"],
                    "carrier": r["carrier"], "split": r["split"], "group": r.get("group", r["id"]),
                    "source": SOURCE, "twin_of": r["id"]})
    return out


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def render(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--split", choices=SPLITS, action="append",
                    help="only this split (repeatable; default: every split with a spans file)")
    ap.add_argument("--check", action="store_true", help="do not write; exit 1 if an output differs")
    args = ap.parse_args(argv)
    records = read_jsonl(args.corpus)
    splits = args.split or [s for s in SPLITS if spans_path(s).exists()]
    if not splits:
        print(f"error: no spans file (corpus/spans_<split>.jsonl) in {HERE.parent}", file=sys.stderr)
        return 2
    stale = 0
    for split in splits:
        try:
            spans = load_spans(spans_path(split), records, split)
        except SpanError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        twins = twin_records(records, spans)
        text = render(twins)
        out = twins_path(split)
        if args.check:
            current = out.read_text(encoding="utf-8") if out.exists() else None
            if current != text:
                print(f"{out} is stale: run python corpus/tools/twins.py", file=sys.stderr)
                stale += 1
            else:
                print(f"{out}: up to date ({len(twins)} twins)")
            continue
        out.write_text(text, encoding="utf-8")
        pos = sum(1 for r in records if r["split"] == split and int(r["label"]) == 1)
        empty = sum(1 for a in spans.values() if not a["spans"])
        print(f"{split}: {len(spans)} of {pos} injections annotated ({empty} with no span); "
              f"{len(twins)} twins -> {out}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
