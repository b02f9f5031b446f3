"""Evidence for the short-text rule floor (``score.SHORT_TEXT_CHARS`` / ``SHORT_TEXT_RULE_FLOOR``).

Run from the repository root: ``PYTHONPATH=src python benchmarks/short_floor.py``.

Scores every record of the corpus's train and dev splits and of the train-only rule-development set
(never the test split, never the public data sets) and prints, for text lengths up to 200-600
characters and rule scores from 0.9 to 0.98, how many benign texts and injections reach that rule
score and how many of those injections the model alone leaves under the threshold. The floor flags
exactly the cells where no benign text reaches it.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import toolbound._detect.score as S  # noqa: E402
from toolbound._detect.engine import get_scanner  # noqa: E402
from toolbound._detect.train import DEFAULT_AUGMENT, augment_records, load_corpus  # noqa: E402


def main() -> int:
    recs = [r for r in load_corpus(ROOT / "corpus" / "corpus.jsonl") if r["split"] in ("train", "dev")]
    if DEFAULT_AUGMENT.exists():
        recs += augment_records(DEFAULT_AUGMENT, None)  # every record of the rule-development set
    scanner = get_scanner()
    model = S.MODEL_SCORER
    rows = []
    for r in recs:
        fs = scanner.scan(r["text"])
        rule = S.rule_score(r["text"], (), fs)
        alone = model(r["text"], (), fs) if model is not None else rule
        rows.append((r["label"], rule, alone, len(r["text"])))
    short_benign = sum(1 for y, _, _, n in rows if y == 0 and n <= 400)
    print(f"{len(rows):,} train/dev/rule-development texts; {short_benign:,} benign of at most 400 characters")
    print("max chars  min rule  benign  injections  missed by the model alone")
    for max_chars in (200, 300, 400, 600):
        for floor in (0.9, 0.95, 0.98):
            neg = sum(1 for y, r, _, n in rows if y == 0 and n <= max_chars and r >= floor)
            pos = [m for y, r, m, n in rows if y == 1 and n <= max_chars and r >= floor]
            missed = sum(1 for m in pos if m < S.DEFAULT_THRESHOLD)
            mark = "  <- shipped" if (max_chars, floor) == (S.SHORT_TEXT_CHARS, S.SHORT_TEXT_RULE_FLOOR) else ""
            print(f"{max_chars:9d}  {floor:8.2f}  {neg:6d}  {len(pos):10d}  {missed:25d}{mark}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
