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
import glob
import json
import re
import statistics
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NEAR = 0.25
_WORD = re.compile(r"\w+")


def shingles(text: str) -> set[str]:
    """The record's word 3-grams (its words when it has fewer than three)."""
    w = _WORD.findall(text.lower())
    if len(w) < 3:
        return {" ".join(w)} if w else set()
    return {" ".join(w[i:i + 3]) for i in range(len(w) - 2)}


def _reference(exclude: set[Path]) -> list[tuple[str, set[str]]]:
    files = [ROOT / "corpus" / "corpus.jsonl", ROOT / "corpus" / "generated.jsonl"]
    files += [Path(p) for p in sorted(glob.glob(str(ROOT / "corpus" / "holdout" / "*.jsonl")))]
    out = []
    for f in files:
        if not f.exists() or f.resolve() in exclude:
            continue
        with open(f, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    r = json.loads(line)
                    out.append((r["id"], shingles(r["text"])))
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
        with open(p, encoding="utf-8") as fh:
            recs = [json.loads(line) for line in fh if line.strip()]
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
