"""Is model B better than model A on these records, or is the difference noise? A paired bootstrap.

    python benchmarks/paired_bootstrap.py A.jsonl B.jsonl [--resamples 2000] [--threshold T] [--json]

``A.jsonl`` and ``B.jsonl`` come from ``benchmarks/dump_scores.py`` (the same records scored by two
models). The statistic is the selection criterion of ``benchmarks/model_selection.md``: mean recall
at FPR <= 0.5%, 1% and 2%, and each of the three points. Each resample draws the positives and the
negatives with replacement (stratified, as ``toolbound bench`` does) and scores *the same* drawn
records under both models, so what varies between models is the model, not the sample. Reported:
the observed difference B - A, its percentile interval (95% and 90%), and the share of resamples in
which B beats A.

With ``--threshold T`` the statistic is instead Youden's J at that fixed score threshold (recall minus
FPR, a record flagged when its score is at least T, as ``detect()`` flags), with recall and FPR
beside it: for small sets, where the FPR points of the usual criterion rest on one or two negatives.
(For the FPR line, "P(B>A)" is the share of resamples in which B flags *more* negatives.)

Records are resampled one by one; records written from one template or by one author are not
independent, so real uncertainty is somewhat larger than these intervals.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from toolbound._bench import _barrier  # noqa: E402  (the one definition of "recall at FPR <= x")

POINTS = (0.005, 0.01, 0.02)


def load(path: str) -> tuple[dict, dict[str, tuple[int, float]]]:
    """A file of ``dump_scores.py``: its header line and ``{id: (label, score)}``. A missing or
    malformed file stops the script with a message naming the file and line."""
    try:
        with open(path, encoding="utf-8") as fh:
            head = json.loads(fh.readline())
            rows = {}
            for n, line in enumerate(fh, 2):
                if line.strip():
                    try:
                        r = json.loads(line)
                        rows[r["id"]] = (int(r["label"]), float(r["score"]))
                    except (ValueError, KeyError, TypeError) as exc:
                        raise SystemExit(f"{path}:{n}: not a score line of dump_scores.py ({exc})") from None
    except OSError as exc:
        raise SystemExit(f"cannot read {path}: {exc.strerror}") from None
    except ValueError:
        raise SystemExit(f"{path}:1: not a dump_scores.py file (its first line is not the JSON header)") from None
    return head, rows


def recalls(pos: list[float], neg: list[float]) -> list[float]:
    neg = sorted(neg, reverse=True)
    out = []
    for p in POINTS:
        b = _barrier(neg, p)
        out.append(sum(1 for x in pos if x > b) / len(pos))
    return out


def stats(pos: list[float], neg: list[float]) -> list[float]:
    r = recalls(pos, neg)
    return [sum(r) / len(r), *r]


def at_threshold(t: float) -> Callable[[list[float], list[float]], list[float]]:
    """``[J, recall, FPR]`` at score threshold ``t`` (flagged: score >= t)."""
    def stats_t(pos: list[float], neg: list[float]) -> list[float]:
        r = sum(1 for x in pos if x >= t) / len(pos)
        f = sum(1 for x in neg if x >= t) / len(neg)
        return [r - f, r, f]
    return stats_t


def compare(a: dict[str, tuple[int, float]], b: dict[str, tuple[int, float]], *, resamples: int,
            seed: int, threshold: float | None = None) -> dict:
    if set(a) != set(b):
        only = sorted(set(a) ^ set(b))[:5]
        raise SystemExit(f"the two files score different records (e.g. {only}); score the same data twice")
    ids = sorted(a)
    for i in ids:
        if a[i][0] != b[i][0]:
            raise SystemExit(f"record {i} has label {a[i][0]} in one file and {b[i][0]} in the other")
    pos = [i for i in ids if a[i][0] == 1]
    neg = [i for i in ids if a[i][0] == 0]
    if not pos or not neg:
        raise SystemExit("need both positives and negatives")
    if threshold is None:
        names = ["criterion", *(f"R@FPR<={p:g}" for p in POINTS)]
        stat = stats
    else:
        names = [f"J@{threshold:g}", f"recall@{threshold:g}", f"FPR@{threshold:g}"]
        stat = at_threshold(threshold)
    sa = stat([a[i][1] for i in pos], [a[i][1] for i in neg])
    sb = stat([b[i][1] for i in pos], [b[i][1] for i in neg])
    rng = random.Random(seed)
    diffs: list[list[float]] = [[] for _ in names]
    for _ in range(resamples):
        ps = rng.choices(pos, k=len(pos))
        ns = rng.choices(neg, k=len(neg))
        xa = stat([a[i][1] for i in ps], [a[i][1] for i in ns])
        xb = stat([b[i][1] for i in ps], [b[i][1] for i in ns])
        for k in range(len(names)):
            diffs[k].append(xb[k] - xa[k])
    out = {"n": len(ids), "positives": len(pos), "negatives": len(neg), "resamples": resamples, "seed": seed,
           "threshold": threshold, "stats": {}}
    for k, name in enumerate(names):
        d = sorted(diffs[k])

        def q(f: float) -> float:
            return round(d[min(len(d) - 1, max(0, int(round(f * (len(d) - 1)))))], 4)

        out["stats"][name] = {"a": round(sa[k], 4), "b": round(sb[k], 4), "diff": round(sb[k] - sa[k], 4),
                              "ci95": [q(0.025), q(0.975)], "ci90": [q(0.05), q(0.95)],
                              "p_b_better": round(sum(1 for x in d if x > 0) / len(d), 3),
                              "p_tie": round(sum(1 for x in d if x == 0) / len(d), 3)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--threshold", type=float, default=None,
                    help="compare Youden's J (recall - FPR) at this fixed score threshold instead")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    args = ap.parse_args(argv)
    if args.threshold is not None and not 0.0 <= args.threshold <= 1.0:
        ap.error("--threshold must be between 0 and 1")
    ha, a = load(args.a)
    hb, b = load(args.b)
    res = compare(a, b, resamples=args.resamples, seed=args.seed, threshold=args.threshold)
    res["a"] = {k: ha.get(k) for k in ("toolbound", "weights_sha256", "expert_weights_sha256", "split")}
    res["b"] = {k: hb.get(k) for k in ("toolbound", "weights_sha256", "expert_weights_sha256", "split")}
    if args.json:
        print(json.dumps(res, indent=1))
        return 0
    print(f"{res['n']} records ({res['positives']} pos, {res['negatives']} neg), {res['resamples']} paired resamples")
    for name, h in (("A", ha), ("B", hb)):
        ex = f", expert {str(h['expert_weights_sha256'])[:12]}" if h.get("expert_weights_sha256") else ""
        print(f"{name}: {str(h.get('weights_sha256'))[:12]}{ex} ({h.get('toolbound')})")
    for name, s in res["stats"].items():
        print(f"{name:14s} A {s['a']:.4f}  B {s['b']:.4f}  B-A {s['diff']:+.4f}  95% [{s['ci95'][0]:+.4f}, "
              f"{s['ci95'][1]:+.4f}]  90% [{s['ci90'][0]:+.4f}, {s['ci90'][1]:+.4f}]  P(B>A) {s['p_b_better']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
