"""How close a writer's records come to the corpus: near-copies show up before a round uses them.

    python corpus/tools/overlap.py FILE [FILE ...]

For each record of FILE, the highest Jaccard similarity between its set of word 3-grams (lower-cased
runs of letters and digits) and that of any record of ``corpus/corpus.jsonl``, ``corpus/generated.jsonl``
and the holdout sets (``corpus/holdout/*.jsonl``, the file itself excluded); prints the median and
the highest, the records at or above :data:`NEAR` (listed with their nearest record), and exits 0.
Session 25 rewrote this check into the repository (the rounds before it used a script kept outside
the repository, lost with the machine); on round 86's files it reads what that one reported (median
0.023-0.037, highest 0.21-0.22; then: median 0.029, highest 0.22).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from validate import corpus_files  # noqa: E402

NEAR = 0.25
_WORD = re.compile(r"\w+")


def shingles(text: str) -> set[str]:
    """The record's word 3-grams (its words when it has fewer than three)."""
    w = _WORD.findall(text.lower())
    if len(w) < 3:
        return {" ".join(w)} if w else set()
    return {" ".join(w[i:i + 3]) for i in range(len(w) - 2)}


def _reference(exclude: set[Path]) -> list[tuple[str, set[str]]]:
    out = []
    for f in corpus_files(unadopted=False):
        if f.resolve() in exclude:
            continue
        with open(f, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    r = json.loads(line)
                    out.append((r["id"], shingles(r["text"])))
    return out


def _records(path: Path) -> list[dict]:
    """The records of a writer's file; ValueError naming the file and line when one cannot be read."""
    out = []
    try:
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    r = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path}:{n}: not JSON ({exc.msg})") from None
                if not isinstance(r, dict) or not isinstance(r.get("text"), str):
                    raise ValueError(f"{path}:{n}: a record needs a string 'text' (run validate.py first)")
                r.setdefault("id", f"line {n}")
                out.append(r)
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    return out


def nearest(records: list[dict], reference: list[tuple[str, set[str]]]) -> list[tuple[str, float, str]]:
    """``(id, highest Jaccard similarity, id of that reference record)`` per record."""
    index: dict[str, list[int]] = {}
    for k, (_rid, sh) in enumerate(reference):
        for s in sh:
            index.setdefault(s, []).append(k)
    out = []
    for r in records:
        a = shingles(r["text"])
        shared = Counter(k for s in a for k in index.get(s, ()))
        best, at = 0.0, ""
        for k, inter in shared.items():
            j = inter / (len(a) + len(reference[k][1]) - inter)
            if j > best:
                best, at = j, reference[k][0]
        out.append((r["id"], best, at))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    args = ap.parse_args(argv)
    paths = [Path(f) for f in args.files]
    reference = _reference({p.resolve() for p in paths})
    for p in paths:
        try:
            recs = _records(p)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        if not recs:
            print(f"{p.name}: no records")
            continue
        res = nearest(recs, reference)
        js = [j for _, j, _ in res]
        near = [x for x in res if x[1] >= NEAR]
        print(f"{p.name}: {len(res)} records, overlap median {statistics.median(js):.3f}, "
              f"highest {max(js):.3f}, {len(near)} at {NEAR} or more")
        for rid, j, at in sorted(near, key=lambda x: -x[1]):
            print(f"  {rid}: {j:.3f} with {at}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
