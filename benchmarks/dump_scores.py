"""Write every record's detection score, for comparing two models on the same records.

Run from the repository root, with the toolbound to measure on ``PYTHONPATH`` (this checkout's
``src``, or an older commit's checked out with ``git worktree add``)::

    PYTHONPATH=src python benchmarks/dump_scores.py --split dev --out /tmp/new_dev.jsonl
    PYTHONPATH=src python benchmarks/dump_scores.py --split dev --model /tmp/candidate --out /tmp/cand_dev.jsonl
    git worktree add /tmp/old <commit>
    PYTHONPATH=/tmp/old/src python benchmarks/dump_scores.py --split dev --out /tmp/old_dev.jsonl
    python benchmarks/paired_bootstrap.py /tmp/old_dev.jsonl /tmp/new_dev.jsonl

Output: one JSON line per record (``id``, ``label``, ``score``), after a first line naming the
toolbound that scored them (its path and model weights hash), so a comparison cannot silently use
the wrong checkout. Uses only ``load_jsonl`` and ``score_records`` of ``toolbound._bench``, which
every version since the corpus existed has.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="corpus/corpus.jsonl", help="labelled JSONL (default: the corpus)")
    ap.add_argument("--split", default=None, help="only records of this split (dev, test, train)")
    ap.add_argument("--out", required=True, help="where the scores go (JSONL)")
    ap.add_argument("--model", default=None, metavar="DIR",
                    help="score with the model.bin/model.json in DIR (a training candidate) instead of the "
                         "shipped one")
    args = ap.parse_args(argv)

    import toolbound
    from toolbound._bench import load_jsonl, score_records

    data = Path(args.data)
    if not data.is_file():
        print(f"no such file: {data}", file=sys.stderr)
        return 2
    recs = load_jsonl(data, split=args.split)
    if not recs:
        print(f"{data}: no records" + (f" in split {args.split!r}" if args.split else ""), file=sys.stderr)
        return 2
    src = Path(toolbound.__file__).resolve().parent
    weights = src / "_detect" / "model.bin"
    if args.model is not None:
        from toolbound._detect import model as M

        try:
            M._MODEL = M.Model.load(args.model)
        except M.ModelError as exc:
            print(str(exc), file=sys.stderr)
            return 2
        weights = Path(args.model) / M.WEIGHTS_FILE
    sha = hashlib.sha256(weights.read_bytes()).hexdigest() if weights.exists() else None
    expert = _expert_sha()
    scored = score_records(recs, excerpts=False)
    with open(args.out, "w", encoding="utf-8") as fh:
        fh.write(json.dumps({"toolbound": str(src), "model": args.model, "weights_sha256": sha,
                             "expert_weights_sha256": expert, "data": str(data),
                             "split": args.split, "n": len(scored)}) + "\n")
        for s in scored:
            fh.write(json.dumps({"id": s.id, "label": s.label, "score": s.score}) + "\n")
    named = f", expert {expert[:12]}" if expert else ""
    print(f"{len(scored)} records scored by {src} (weights {str(sha)[:12]}{named}) -> {args.out}", file=sys.stderr)
    return 0


def _expert_sha() -> str | None:
    """The weights hash of the expert the scoring model names (round 42), if any."""
    try:
        from toolbound._detect import model as M

        if not M.weights_present() and M._MODEL is None:
            return None
        return M.get_model().meta.get("expert", {}).get("weights_sha256")
    except (AttributeError, ImportError):  # a checkout older than the model
        return None


if __name__ == "__main__":
    raise SystemExit(main())
