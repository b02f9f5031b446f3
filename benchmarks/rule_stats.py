"""Rule development aid: what each rule catches and what it wrongly fires on, on the corpus's
train and dev splits only (the test split and the public data sets are for evaluation; never tune
rules on them).

    python benchmarks/rule_stats.py                 # every rule, train+dev
    python benchmarks/rule_stats.py --family exfiltration --show-fp --show-fn 20
    python benchmarks/rule_stats.py --split dev     # only dev
    python benchmarks/rule_stats.py --augment --family override --show-fn 20   # the augmentation set

Prints, per rule: hits on label-1 records (and of which family), hits on label-0 records; per
family: recall of the family's own records by any rule, and the rule score's recall/FPR at 0.5.
``--show-fp`` lists the benign records a rule fires on; ``--show-fn N`` lists up to N attack records
of the family that no rule of any family catches.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from toolbound._detect.engine import Scanner  # noqa: E402
from toolbound._detect.packs import load_rules  # noqa: E402
from toolbound._detect.score import rule_score  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", default="train,dev", choices=["train", "dev", "train,dev"])
    ap.add_argument("--family", help="only rules and records of this family")
    ap.add_argument("--show-fp", action="store_true")
    ap.add_argument("--show-fn", type=int, default=0)
    ap.add_argument("--corpus", default=str(ROOT / "corpus" / "corpus.jsonl"))
    ap.add_argument("--augment", action="store_true",
                    help="score only corpus/augment_train.jsonl (train-only phrasings composed by "
                         "corpus/tools/augment.py from lexicons written apart from the rules)")
    a = ap.parse_args()
    splits = set(a.split.split(","))
    if a.augment:
        path = ROOT / "corpus" / "augment_train.jsonl"
        recs = list(map(json.loads, open(path, encoding="utf-8")))
    else:
        recs = [r for r in map(json.loads, open(a.corpus, encoding="utf-8")) if r["split"] in splits]
    scanner = Scanner(load_rules())
    pos_hits: dict[str, Counter] = defaultdict(Counter)
    neg_hits: dict[str, list[str]] = defaultdict(list)
    fam_caught: Counter = Counter()
    fam_total: Counter = Counter()
    flagged = Counter()
    missed: dict[str, list[dict]] = defaultdict(list)
    for r in recs:
        fs = scanner.scan(r["text"])
        rules = {f.rule_id for f in fs}
        s = rule_score(r["text"], (), fs)
        if r["label"] == 1:
            fam_total[r["family"]] += 1
            fam_caught[r["family"]] += bool(rules)
            flagged[(r["family"], 1)] += s >= 0.5
            if not rules:
                missed[r["family"]].append(r)
            for rid in rules:
                pos_hits[rid][r["family"]] += 1
        else:
            flagged[("benign", 0)] += s >= 0.5
            fam_total["benign"] += 1
            for rid in rules:
                neg_hits[rid].append(r["id"])
    by_id = {r["id"]: r for r in recs}
    print(f"{'rule':55s} {'pos':>5s} {'neg':>4s}  top families")
    for rule in scanner.rules if hasattr(scanner, "rules") else load_rules():
        rid = rule.id
        if a.family and rule.family != a.family:
            continue
        ph = pos_hits.get(rid, Counter())
        print(f"{rid:55s} {sum(ph.values()):5d} {len(neg_hits.get(rid, [])):4d}  "
              + ", ".join(f"{k}:{v}" for k, v in ph.most_common(4)))
        if a.show_fp:
            for i in neg_hits.get(rid, [])[:10]:
                print(f"      FP {i}: {by_id[i]['text'][:160]!r}")
    print()
    print(f"{'family':22s} {'n':>5s} {'any rule':>9s} {'score>=.5':>9s}")
    for fam in sorted(fam_total):
        if a.family and fam not in (a.family, "benign"):
            continue
        n = fam_total[fam]
        if fam == "benign":
            print(f"{fam:22s} {n:5d} {'':>9s} {flagged[('benign', 0)] / n:9.3f}  (FPR)")
        else:
            print(f"{fam:22s} {n:5d} {fam_caught[fam] / n:9.3f} {flagged[(fam, 1)] / n:9.3f}")
    if a.show_fn:
        for fam, rs in sorted(missed.items()):
            if a.family and fam != a.family:
                continue
            for r in rs[: a.show_fn]:
                print(f"  FN {fam} {r['id']} [{r['lang']}/{r['carrier']}]: {r['text'][:1200]!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
