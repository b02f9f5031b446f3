"""Check that ``detect()`` gives exactly the same answers as a saved snapshot (for speed work).

Run from the repository root::

    PYTHONPATH=src python benchmarks/check_detect_equivalence.py --save /tmp/detect_baseline.json
    # ... change the code ...
    PYTHONPATH=src python benchmarks/check_detect_equivalence.py --compare /tmp/detect_baseline.json

Texts: every text of ``corpus/corpus.jsonl`` and ``corpus/generated.jsonl``, every text of the JSONL
files in ``--datasets`` (default ``../shared/datasets``, read in place, never copied), the benign
4 KB chunks of ``bench_detect_speed.py`` and 20 KB of each shape of ``adversarial_shapes.py``. For
each text it records ``flagged``, ``score`` (rounded to 1e-9) and the sorted findings
``(rule_id, family, start, end, severity, reason, score, detail)``; also ``scan_strings()`` over
each text's lines, for the cross-field path. Any difference is listed.
"""

from __future__ import annotations

import argparse
import glob
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))


def texts(datasets: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    files = [str(ROOT / "corpus" / "corpus.jsonl"), str(ROOT / "corpus" / "generated.jsonl")]
    files += sorted(glob.glob(str(Path(datasets) / "*.jsonl")))
    for f in files:
        if not Path(f).exists():
            continue
        with open(f, encoding="utf-8") as fh:
            for i, line in enumerate(fh):
                line = line.strip()
                if line:
                    out.append((f"{Path(f).name}:{i}", json.loads(line)["text"]))
    from bench_detect_speed import benign_source

    benign = benign_source()
    for i in range(0, len(benign), 4000):
        out.append((f"benign:{i}", benign[i:i + 4000]))
    from adversarial_shapes import SHAPES, make

    for name in SHAPES:  # dense hits, findings and evasions (20 KB: quick even where cost was quadratic)
        out.append((f"shape:{name}", make(name, 20_000)))
    return out


def finding_key(f) -> list:  # type: ignore[no-untyped-def]
    return [f.rule_id, f.family, f.start, f.end, f.severity, f.reason, f.path, round(f.score, 9), f.detail]


def snapshot(items: list[tuple[str, str]]) -> dict[str, dict]:
    from toolbound._detect import detect, scan_strings

    out: dict[str, dict] = {}
    for key, text in items:
        d = detect(text)
        rec = {"flagged": d.flagged, "score": round(d.score, 9),
               "findings": sorted(finding_key(f) for f in d.findings)}
        lines = text.split("\n")
        if 1 < len(lines) <= 200:
            rec["fields"] = sorted(finding_key(f) for f in scan_strings([(f"/{j}", x) for j, x in enumerate(lines)]))
        out[key] = rec
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--save", help="write the snapshot here")
    g.add_argument("--compare", help="compare with the snapshot saved here")
    ap.add_argument("--datasets", default=str(ROOT.parent / "shared" / "datasets"))
    args = ap.parse_args()
    items = texts(args.datasets)
    t0 = time.perf_counter()
    snap = snapshot(items)
    dt = time.perf_counter() - t0
    print(f"{len(items)} texts, {sum(len(t) for _, t in items):,} chars, {dt:.1f} s")
    if args.save:
        Path(args.save).write_text(json.dumps(snap, ensure_ascii=False, sort_keys=True), encoding="utf-8")
        print(f"saved {args.save}")
        return 0
    base = json.loads(Path(args.compare).read_text(encoding="utf-8"))
    snap = json.loads(json.dumps(snap, ensure_ascii=False))  # same types as the loaded snapshot
    diffs = [k for k in sorted(set(base) | set(snap)) if base.get(k) != snap.get(k)]
    for k in diffs[:30]:
        print(f"DIFF {k}\n  before: {base.get(k)}\n  after:  {snap.get(k)}")
    print(f"{len(diffs)} of {len(base)} texts differ")
    return 1 if diffs else 0


if __name__ == "__main__":
    raise SystemExit(main())
