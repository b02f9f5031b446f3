"""Detection quality benchmark: the logic behind ``toolbound bench``.

Scores every record of the corpus split (default ``test``) and of any extra labelled JSONL files
with :func:`toolbound._detect.detect`, and reports precision, recall, false-positive rate and F1
overall, per family (recall for attack families, FPR for benign kinds), per language and per
carrier, a threshold sweep, the recall reachable at FPR <= 1% / 2%, 95% bootstrap intervals for
the headline figures (:func:`bootstrap`), and the worst false positives and false negatives. Results are written as JSON (no timestamps: the same code, model and data
give the same bytes) and rendered as a compact table.

Record schema (corpus and extra files alike): ``id``, ``text``, ``label`` (0/1), optional
``family``, ``lang``, ``carrier``, ``split``. Extra data sets are read where they are; nothing is
copied. For them the results hold ids, families and scores only, never text (some are under
share-alike licences); corpus records get a short excerpt.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Counts", "Scored", "SWEEP", "bootstrap", "evaluate", "load_jsonl", "metrics", "recall_at_fpr",
           "render_intervals", "render_table", "wilson",
           "run", "shared_datasets"]

SWEEP: tuple[float, ...] = tuple(round(0.05 * i, 2) for i in range(1, 20))
FPR_POINTS: tuple[float, ...] = (0.01, 0.02)
WORST = 15
BOOT_RESAMPLES = 1000
BOOT_SEED = 20261201
BOOT_LEVEL = 0.95
EXCERPT = 120
RESULTS_DIR = Path("benchmarks") / "results"
SHARED_RELATIVE = Path("..") / "shared" / "datasets"


@dataclass(frozen=True, slots=True)
class Scored:
    """One record and its detection score."""

    id: str
    label: int
    score: float
    family: str
    lang: str
    carrier: str
    excerpt: str | None = None


@dataclass(frozen=True, slots=True)
class Counts:
    """A confusion matrix."""

    tp: int = 0
    fp: int = 0
    tn: int = 0
    fn: int = 0


def _div(a: float, b: float) -> float | None:
    return a / b if b else None


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def wilson(k: int, n: int, z: float = 1.96) -> list[float] | None:
    """Wilson score interval (95% by default) of the proportion ``k / n``; None when ``n`` is 0.

    Used for per-family, per-language and per-carrier figures, where ``n`` is often 20-40 and an
    interval says more than the point (it stays inside [0, 1] and is sensible at 0 and n).
    """
    if n <= 0:
        return None
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return [_r(max(0.0, mid - half)), _r(min(1.0, mid + half))]  # type: ignore[list-item]


def metrics(c: Counts) -> dict[str, Any]:
    """Precision, recall, FPR and F1 of a confusion matrix, with Wilson 95% intervals for recall and FPR.

    A ratio whose denominator is zero is ``None`` (e.g. recall on a set without positives), except
    F1, which is 0.0 when precision or recall is 0 or undefined but the set has positives.
    """
    precision = _div(c.tp, c.tp + c.fp)
    recall = _div(c.tp, c.tp + c.fn)
    fpr = _div(c.fp, c.fp + c.tn)
    if precision is None or recall is None:
        f1 = 0.0 if c.tp + c.fn else None
    else:
        f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return {"n": c.tp + c.fp + c.tn + c.fn, "positives": c.tp + c.fn, "negatives": c.fp + c.tn,
            "tp": c.tp, "fp": c.fp, "tn": c.tn, "fn": c.fn,
            "precision": _r(precision), "recall": _r(recall), "fpr": _r(fpr), "f1": _r(f1),
            "recall_ci95": wilson(c.tp, c.tp + c.fn), "fpr_ci95": wilson(c.fp, c.fp + c.tn)}


def count(items: Iterable[Scored], threshold: float) -> Counts:
    tp = fp = tn = fn = 0
    for s in items:
        flagged = s.score >= threshold
        if s.label:
            tp += flagged
            fn += not flagged
        else:
            fp += flagged
            tn += not flagged
    return Counts(tp, fp, tn, fn)


def recall_at_fpr(items: Sequence[Scored], max_fpr: float) -> dict[str, Any] | None:
    """The best recall at any threshold whose FPR is at most ``max_fpr`` (a point on the ROC curve).

    ``None`` when the set lacks positives or negatives. The threshold reported is the lowest score
    that achieves it (scores at or above it are flagged).
    """
    pos = sorted((s.score for s in items if s.label), reverse=True)
    neg = sorted((s.score for s in items if not s.label), reverse=True)
    if not pos or not neg:
        return None
    barrier = _barrier(neg, max_fpr)
    tp = sum(1 for p in pos if p > barrier)
    fp = sum(1 for n in neg if n > barrier)
    above = [p for p in pos if p > barrier]
    return {"max_fpr": max_fpr, "recall": _r(tp / len(pos)), "fpr": _r(fp / len(neg)),
            "threshold": _r(min(above)) if above else None}


def _barrier(neg_desc: Sequence[float], max_fpr: float) -> float:
    """The score to beat for FPR <= ``max_fpr``: flag everything strictly above the (allowed+1)-th
    highest negative score (``neg_desc`` sorted high to low)."""
    allowed = int(math.floor(max_fpr * len(neg_desc) + 1e-9))
    return neg_desc[allowed] if allowed < len(neg_desc) else -math.inf


def _interval(xs: list[float], level: float) -> list[float] | None:
    if not xs:
        return None
    xs = sorted(xs)
    lo = xs[int(math.floor((1 - level) / 2 * (len(xs) - 1)))]
    hi = xs[int(math.ceil((1 + level) / 2 * (len(xs) - 1)))]
    return [_r(lo), _r(hi)]  # type: ignore[list-item]


def bootstrap(items: Sequence[Scored], threshold: float, *, resamples: int = BOOT_RESAMPLES,
              seed: int = BOOT_SEED, level: float = BOOT_LEVEL) -> dict[str, Any]:
    """Percentile bootstrap intervals for recall and FPR at ``threshold`` and for recall at FPR <= 1%/2%.

    Stratified: each resample draws as many positives and as many negatives as the set has (with
    replacement), so every resample has the set's class balance. Records are resampled one by one;
    records written from one template or by one author are not independent, so the true
    uncertainty is somewhat wider than these intervals. A fixed seed keeps the output reproducible.
    """
    import random

    rng = random.Random(seed)
    pos = [s.score for s in items if s.label]
    neg = [s.score for s in items if not s.label]
    recalls: list[float] = []
    fprs: list[float] = []
    at: dict[float, list[float]] = {p: [] for p in FPR_POINTS}
    for _ in range(resamples):
        ps = rng.choices(pos, k=len(pos)) if pos else []
        ns = rng.choices(neg, k=len(neg)) if neg else []
        if ps:
            recalls.append(sum(1 for x in ps if x >= threshold) / len(ps))
        if ns:
            fprs.append(sum(1 for x in ns if x >= threshold) / len(ns))
        if ps and ns:
            ns.sort(reverse=True)
            for p in FPR_POINTS:
                b = _barrier(ns, p)
                at[p].append(sum(1 for x in ps if x > b) / len(ps))
    return {"resamples": resamples, "level": level, "seed": seed, "recall": _interval(recalls, level),
            "fpr": _interval(fprs, level), "recall_at_fpr": {f"{p:g}": _interval(at[p], level) for p in FPR_POINTS}}


def _group(items: Sequence[Scored], key: Callable[[Scored], str]) -> dict[str, list[Scored]]:
    out: dict[str, list[Scored]] = {}
    for s in items:
        out.setdefault(key(s), []).append(s)
    return dict(sorted(out.items()))


def evaluate(items: Sequence[Scored], threshold: float) -> dict[str, Any]:
    """Every metric of one data set (see the module docstring)."""
    overall = metrics(count(items, threshold))
    families: dict[str, Any] = {}
    for fam, group in _group(items, lambda s: s.family).items():
        m = metrics(count(group, threshold))
        # attack families: recall; benign kinds: FPR (the other ratio is undefined for them)
        families[fam] = ({"label": 1, "n": m["n"], "detected": m["tp"], "recall": m["recall"],
                          "recall_ci95": m["recall_ci95"]}
                         if all(s.label for s in group) else
                         {"label": 0, "n": m["n"], "flagged": m["fp"], "fpr": m["fpr"], "fpr_ci95": m["fpr_ci95"]}
                         if not any(s.label for s in group) else m)
    langs = {k: metrics(count(g, threshold)) for k, g in _group(items, lambda s: s.lang).items()}
    carriers = {k: metrics(count(g, threshold)) for k, g in _group(items, lambda s: s.carrier).items()
                if k != "-"}
    sweep = []
    for t in SWEEP:
        m = metrics(count(items, t))
        sweep.append({"threshold": t, "precision": m["precision"], "recall": m["recall"], "fpr": m["fpr"],
                      "f1": m["f1"]})
    fps = sorted((s for s in items if not s.label and s.score >= threshold), key=lambda s: (-s.score, s.id))
    fns = sorted((s for s in items if s.label and s.score < threshold), key=lambda s: (s.score, s.id))

    def show(s: Scored) -> dict[str, Any]:
        d: dict[str, Any] = {"id": s.id, "score": round(s.score, 4), "family": s.family}
        if s.excerpt is not None:
            d["excerpt"] = s.excerpt
        return d

    return {
        "threshold": threshold,
        "overall": overall,
        "recall_at_fpr": {f"{p:g}": recall_at_fpr(items, p) for p in FPR_POINTS},
        "intervals": bootstrap(items, threshold),
        "families": families,
        "languages": langs,
        "carriers": carriers,
        "sweep": sweep,
        "worst_false_positives": [show(s) for s in fps[:WORST]],
        "worst_false_negatives": [show(s) for s in fns[:WORST]],
    }


def load_jsonl(path: Path, *, split: str | None = None) -> list[dict[str, Any]]:
    """Records of a JSONL file (only those of ``split`` when given)."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for i, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{i}: not JSON ({exc.msg})") from None
            if not isinstance(r, dict) or "text" not in r or "label" not in r:
                raise ValueError(f"{path}:{i}: a record needs at least 'text' and 'label'")
            if split is not None and r.get("split") != split:
                continue
            r.setdefault("id", f"{path.stem}-{i}")
            out.append(r)
    return out


def score_records(recs: Sequence[dict[str, Any]], *, excerpts: bool) -> list[Scored]:
    from toolbound._detect import detect

    out = []
    for r in recs:
        text = r["text"]
        det = detect(text)
        label = int(r["label"])
        fam = str(r.get("family") or ("attack" if label else "benign"))
        ex = None
        if excerpts:
            ex = " ".join(text.split())
            ex = ex[:EXCERPT] + ("…" if len(ex) > EXCERPT else "")
        out.append(Scored(str(r["id"]), label, float(det.score), fam, str(r.get("lang") or "-"),
                          str(r.get("carrier") or "-"), ex))
    return out


def shared_datasets(root: Path) -> list[Path]:
    """The public JSONL data sets next to the repository (``../shared/datasets``), if present."""
    d = (root / SHARED_RELATIVE).resolve()
    return sorted(d.glob("*.jsonl")) if d.is_dir() else []


def _model_info() -> dict[str, Any]:
    from toolbound._detect import default_threshold
    from toolbound._detect import score as score_mod

    info: dict[str, Any] = {"threshold": default_threshold(), "scorer": "rules only"}
    try:
        from toolbound._detect import model as model_mod

        if score_mod.MODEL_SCORER is not None and model_mod.weights_present():
            meta = model_mod.get_model().meta
            info.update({"scorer": "rules + passage model", "model_version": meta.get("version"),
                         "weights_sha256": meta.get("weights_sha256"),
                         "train_sha256": meta.get("training", {}).get("train_sha256")})
    except Exception as exc:  # pragma: no cover - reported, not fatal
        info["model_error"] = type(exc).__name__
    clf = score_mod.CLASSIFIER
    if clf is not None:
        info["scorer"] += " + classifier (max)"
        info["classifier"] = {"name": getattr(clf, "name", type(clf).__name__),
                              "sha256": getattr(clf, "sha256", None), "label": getattr(clf, "label", None),
                              "max_length": getattr(clf, "max_length", None), "stride": getattr(clf, "stride", None)}
    return info


def run(*, corpus: Path | None, split: str, data: Sequence[Path], out_dir: Path,
        log: Callable[[str], None] = print) -> dict[str, Any]:
    """Score every data set, write ``quality_<name>.json`` per set and ``quality.json``; return the summary."""
    from toolbound._detect import default_threshold

    threshold = default_threshold()
    sets: list[tuple[str, list[Scored], str]] = []
    if corpus is not None:
        recs = load_jsonl(corpus, split=split)
        if not recs:
            raise ValueError(f"{corpus}: no records in split {split!r}")
        sets.append((f"corpus_{split}", score_records(recs, excerpts=True), str(corpus)))
    seen: set[str] = set()
    for p in data:
        name = p.stem
        if name in seen:
            raise ValueError(f"two data sets are named {name!r}; rename one of the files")
        seen.add(name)
        sets.append((name, score_records(load_jsonl(p), excerpts=False), p.name))
    out_dir.mkdir(parents=True, exist_ok=True)
    summary: dict[str, Any] = {"model": _model_info(), "datasets": {}}
    for name, items, source in sets:
        res = evaluate(items, threshold)
        res = {"name": name, "source": source, **res}
        (out_dir / f"quality_{name}.json").write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n",
                                                      encoding="utf-8")
        o = res["overall"]
        summary["datasets"][name] = {
            "source": source, "n": o["n"], "positives": o["positives"], "negatives": o["negatives"],
            "precision": o["precision"], "recall": o["recall"], "fpr": o["fpr"], "f1": o["f1"],
            "recall_at_fpr_1pct": (res["recall_at_fpr"]["0.01"] or {}).get("recall"),
            "recall_at_fpr_2pct": (res["recall_at_fpr"]["0.02"] or {}).get("recall"),
            "intervals_95": {"recall": res["intervals"]["recall"], "fpr": res["intervals"]["fpr"],
                             "recall_at_fpr_1pct": res["intervals"]["recall_at_fpr"]["0.01"],
                             "recall_at_fpr_2pct": res["intervals"]["recall_at_fpr"]["0.02"]},
        }
    (out_dir / "quality.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n",
                                          encoding="utf-8")
    return summary


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def _layout(cols: Sequence[str], rows: Sequence[Sequence[str]], markdown: bool) -> str:
    """Rows under a header, as a markdown table or as aligned text (first column left, others right)."""
    if markdown:
        lines = ["| " + " | ".join(cols) + " |", "| --- | " + " | ".join("---:" for _ in cols[1:]) + " |"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c) for i, c in enumerate(cols)]
    fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
    return "\n".join([fmt.format(*cols), *(fmt.format(*r) for r in rows)])


def render_table(summary: dict[str, Any], markdown: bool = False) -> str:
    """The summary as a compact text (or markdown) table."""
    cols = ("data set", "n", "pos", "neg", "precision", "recall", "FPR", "F1", "R@FPR≤1%", "R@FPR≤2%")
    rows = []
    for name, d in summary["datasets"].items():
        rows.append((name, str(d["n"]), str(d["positives"]), str(d["negatives"]), _fmt(d["precision"]),
                     _fmt(d["recall"]), _fmt(d["fpr"]), _fmt(d["f1"]), _fmt(d["recall_at_fpr_1pct"]),
                     _fmt(d["recall_at_fpr_2pct"])))
    return _layout(cols, rows, markdown)


def _fmt_ci(point: float | None, ci: list[float] | None) -> str:
    if point is None or ci is None:
        return "-"
    return f"{point:.3f} ({ci[0]:.3f}–{ci[1]:.3f})"


def render_intervals(summary: dict[str, Any], markdown: bool = False) -> str:
    """Each data set's recall, FPR and recall at FPR <= 1%/2% with its 95% bootstrap interval."""
    cols = ("data set", "recall (95% CI)", "FPR (95% CI)", "R@FPR≤1% (95% CI)", "R@FPR≤2% (95% CI)")
    rows = []
    for name, d in summary["datasets"].items():
        ci = d.get("intervals_95")
        if ci is None:
            continue
        rows.append((name, _fmt_ci(d["recall"], ci["recall"]), _fmt_ci(d["fpr"], ci["fpr"]),
                     _fmt_ci(d["recall_at_fpr_1pct"], ci["recall_at_fpr_1pct"]),
                     _fmt_ci(d["recall_at_fpr_2pct"], ci["recall_at_fpr_2pct"])))
    return _layout(cols, rows, markdown)
