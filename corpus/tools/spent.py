#!/usr/bin/env python3
"""Spent validation records that join the train split (round 66 of ``benchmarks/model_selection.md``).

``corpus/holdout/`` keeps the records written to decide one question each (see its README). Once a
set has decided its question it is *spent* as a blind test, and the files named in
``corpus/holdout/TRAINING`` (one file name per line; ``#`` starts a comment) become train-split
records of the corpus, read where they are (nothing is copied):

* ``build.py`` adds them to ``corpus/corpus.jsonl`` with ``split`` train: each record's ``group``
  becomes ``<file stem>/<group>``, suffixed (``~N``) so that it hashes to train; the writers' ``inj``
  (and any other field outside the record spec) is dropped from the corpus record;
* records in a test-only carrier (``splits.TEST_ONLY_CARRIERS``) stay out: the train split must not
  hold the carriers the test split keeps for itself;
* the injected passages the writers marked (``inj``, each occurring exactly once in the text) are the
  record's annotated spans in ``corpus/spans_train.jsonl`` (``note`` = :data:`SPAN_NOTE`, ``twin``
  false: nobody judged that deleting them leaves an ordinary document).

    python corpus/tools/spent.py            # write their spans into corpus/spans_train.jsonl
    python corpus/tools/spent.py --check    # fail if spans_train.jsonl does not hold exactly those spans

Run ``build.py`` first (the spans are checked against ``corpus.jsonl``), then this, then ``twins.py``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from splits import TEST_ONLY_CARRIERS, group_name_for_split
from twins import text_sha  # the annotation hash load_spans checks

CORPUS_DIR = HERE.parent
HOLDOUT_DIR = CORPUS_DIR / "holdout"
MANIFEST = HOLDOUT_DIR / "TRAINING"
SPANS = CORPUS_DIR / "spans_train.jsonl"
RECORD_FIELDS = ("id", "text", "label", "family", "lang", "carrier", "group", "source")
_UNSLUG = re.compile(r"[^A-Za-z0-9_.:/#~+-]")
"""Characters a corpus group name may not hold (build.py's GROUP_RE); a writer's group may."""
SPAN_NOTE = "spent holdout record: spans are the writer's inj passages"


class SpentError(ValueError):
    """A manifest entry or a spent record is unusable (names the file and line)."""


def manifest_files(manifest: Path = MANIFEST) -> list[Path]:
    """The holdout files named in ``manifest``, in its order; a missing or repeated name is an error."""
    if not manifest.exists():
        return []
    out: list[Path] = []
    for no, line in enumerate(manifest.read_text(encoding="utf-8").splitlines(), 1):
        name = line.split("#", 1)[0].strip()
        if not name:
            continue
        path = manifest.parent / name
        if "/" in name or not name.endswith(".jsonl"):
            raise SpentError(f"{manifest}:{no}: {name!r} must be the name of a .jsonl file beside it")
        if not path.is_file():
            raise SpentError(f"{manifest}:{no}: {name} does not exist in {manifest.parent}")
        if path in out:
            raise SpentError(f"{manifest}:{no}: {name} is listed twice")
        out.append(path)
    return out


def spent_records(manifest: Path = MANIFEST) -> list[tuple[dict[str, Any], list[str], str]]:
    """``(corpus record, inj passages, where)`` for every record of the manifest's files that joins
    the train split. The record has the corpus input fields only (build.py validates it)."""
    out = []
    for path in manifest_files(manifest):
        stem = path.stem
        with open(path, encoding="utf-8") as fh:
            for no, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                where = f"corpus/holdout/{path.name}:{no}"
                try:
                    raw = json.loads(line)
                except json.JSONDecodeError as e:
                    raise SpentError(f"{where}: invalid JSON ({e.msg})") from None
                if not isinstance(raw, dict):
                    raise SpentError(f"{where}: expected a JSON object")
                if raw.get("carrier") in TEST_ONLY_CARRIERS:
                    continue
                rec = {f: raw[f] for f in RECORD_FIELDS if f in raw}
                if isinstance(rec.get("group"), str):
                    slug = _UNSLUG.sub("-", rec["group"])[:120]
                    rec["group"] = group_name_for_split(f"{stem}/{slug}", "train")
                inj = raw.get("inj", [])
                if not isinstance(inj, list) or not all(isinstance(s, str) and s for s in inj):
                    raise SpentError(f"{where}: inj must be a list of non-empty strings")
                out.append((rec, inj, where))
    return out


def span_entries(manifest: Path = MANIFEST) -> list[dict[str, Any]]:
    """The ``spans_train.jsonl`` entries of the spent injections, in manifest order."""
    out = []
    for rec, inj, where in spent_records(manifest):
        if rec.get("label") != 1:
            continue
        text = rec["text"]
        spans = []
        for s in inj:
            if text.count(s) != 1:
                raise SpentError(f"{where}: an inj passage occurs {text.count(s)} times in the text (must be once)")
            a = text.index(s)
            spans.append([a, a + len(s)])
        out.append({"id": rec["id"], "sha": text_sha(text), "spans": sorted(spans), "twin": False, "note": SPAN_NOTE})
    return out


def spans_text(existing: str, entries: list[dict[str, Any]]) -> str:
    """``existing`` (the spans file) without its spent-record lines, then ``entries``."""
    kept = [ln for ln in existing.splitlines() if ln.strip() and json.loads(ln).get("note") != SPAN_NOTE]
    kept += [json.dumps(e, ensure_ascii=False) for e in entries]
    return "".join(ln + "\n" for ln in kept)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Write (or --check) the spans of the spent holdout records in spans_train.jsonl.")
    ap.add_argument("--check", action="store_true", help="do not write; exit 1 if spans_train.jsonl is stale")
    args = ap.parse_args(argv)
    try:
        entries = span_entries()
    except SpentError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    existing = SPANS.read_text(encoding="utf-8") if SPANS.exists() else ""
    want = spans_text(existing, entries)
    if args.check:
        if want != existing:
            print(f"stale: {SPANS.name} does not hold the spans of the spent records (run: python corpus/tools/spent.py)",
                  file=sys.stderr)
            return 1
        print(f"ok: {SPANS.name} holds the spans of {len(entries):,} spent injections")
        return 0
    SPANS.write_text(want, encoding="utf-8", newline="\n")
    print(f"wrote {len(entries):,} spent-injection spans into {SPANS.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
