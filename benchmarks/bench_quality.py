"""Detection quality: README tables generated from benchmarks/results/quality*.json.

The results come from ``toolbound bench`` (run from the repository root):

    toolbound bench --data corpus/twins_test.jsonl --data shared
        # corpus test split, the test injections' benign twins, ../shared/datasets/*.jsonl

``readme_sections()`` is what ``benchmarks/update_readme.py`` imports; importing this module does
no work. Running it directly runs the benchmark (same as the command above).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def _load(name: str) -> dict | None:
    p = RESULTS / f"{name}.json"
    return json.loads(p.read_text(encoding="utf-8")) if p.exists() else None


def _f(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def _ci(x: list[float] | None) -> str:
    return "–" if x is None else f"{x[0]:.2f}–{x[1]:.2f}"


NO_RESULTS = "_No results yet: run `toolbound bench --data corpus/twins_test.jsonl --data shared`._"


def _summary() -> dict | None:
    """``quality.json`` (None before the first run), with ``src`` importable for the renderers."""
    if str(ROOT / "src") not in sys.path:
        sys.path.insert(0, str(ROOT / "src"))
    return _load("quality")


def quality_summary() -> str:
    """One row per data set: precision, recall, FPR, F1 at the shipped threshold, recall at FPR <= 1%/2%."""
    s = _summary()
    if s is None:
        return NO_RESULTS
    from toolbound._bench import render_table

    m = s["model"]
    head = f"Scorer: {m['scorer']}, threshold {m['threshold']}"
    if m.get("weights_sha256"):
        head += f", model v{m.get('model_version')} (weights `{m['weights_sha256'][:12]}`)"
    return head + ".\n\n" + render_table(s, markdown=True)


# Issue 4's targets and its offline peers, as the issue states them (the peers were measured by others on
# the same public files, each at its default setting; toolbound's figures come from quality.json).
RECALL_TARGET_TEST = 0.97        # corpus test split, recall at FPR <= 1%
RECALL_AIM_PUBLIC = 0.90         # each public tool-output set, recall at FPR <= 2%
PUBLIC_TOOL_OUTPUT = ("injecagent", "bipia_email", "bipia_table_code")
PEERS = {
    # data set: (what the peers reach, (best peer recall, that peer's FPR) or None, best peer FPR on
    # all-benign files, what a "yes" rests on: the issue gives the rule-based peers' FPR only as a bound)
    "injecagent": ("rule-based peers: recall 0.50-0.56 at FPR <= 0.6%", (0.56, 0.006), None,
                   " (FPR judged against the issue's bound)"),
    "bipia_email": ("none above recall 0.05 except a TF-IDF model: 0.28 at FPR 0.35", (0.28, 0.35), None, ""),
    "notinject": ("FPR 0-29% (all benign)", None, 0.0, ""),
}


def _yes(ok: bool) -> str:
    return "**yes**" if ok else "no"


def quality_targets() -> str:
    """Issue 4's targets and offline peers against the shipped model's figures in quality.json."""
    s = _summary()
    if s is None:
        return NO_RESULTS
    ds = s["datasets"]
    rows = ["| data set | target or peers (issue 4) | toolbound | met |", "| --- | --- | --- | --- |"]
    t = ds.get("corpus_test")
    if t:
        v = t["recall_at_fpr_1pct"]
        rows.append(f"| corpus_test | recall >= {RECALL_TARGET_TEST:.2f} at FPR <= 1% | {_f(v)} | "
                    f"{_yes(v is not None and v >= RECALL_TARGET_TEST)} |")
    for name in PUBLIC_TOOL_OUTPUT:
        d = ds.get(name)
        if d:
            v = d["recall_at_fpr_2pct"]
            rows.append(f"| {name} | recall >= {RECALL_AIM_PUBLIC:.2f} at FPR <= 2% (aim) | {_f(v)} | "
                        f"{_yes(v is not None and v >= RECALL_AIM_PUBLIC)} |")
    for name, (said, point, best_fpr, caveat) in PEERS.items():
        d = ds.get(name)
        if not d:
            continue
        if point is not None:
            # beating a peer on both axes: higher recall and lower FPR at toolbound's shipped threshold
            ok = d["recall"] > point[0] and d["fpr"] is not None and d["fpr"] < point[1]
            rows.append(f"| {name} | beat every peer on both axes; {said} | recall {_f(d['recall'])} at FPR "
                        f"{_f(d['fpr'])} (threshold {s['model']['threshold']}) | {_yes(ok)}"
                        + (caveat if ok else "") + " |")
        else:
            ok = d["fpr"] is not None and d["fpr"] < best_fpr
            rows.append(f"| {name} | beat every peer; {said} | FPR {_f(d['fpr'])} | {_yes(ok)} |")
    return "\n".join(rows)


def quality_intervals() -> str:
    """Each data set's headline figures with their 95% bootstrap intervals."""
    s = _summary()
    if s is None:
        return NO_RESULTS
    from toolbound._bench import render_intervals

    return render_intervals(s, markdown=True)


def quality_families() -> str:
    """Corpus test split: recall per attack family, FPR per benign kind."""
    r = _load("quality_corpus_test")
    if r is None:
        return "_No corpus results yet: run `toolbound bench`._"
    rows = ["| family | label | n | recall / FPR | 95% interval |", "| --- | ---: | ---: | ---: | ---: |"]
    for fam, d in r["families"].items():
        if d.get("label") == 1:
            rows.append(f"| {fam} | 1 | {d['n']} | recall {_f(d['recall'])} | {_ci(d.get('recall_ci95'))} |")
        elif d.get("label") == 0:
            rows.append(f"| {fam} | 0 | {d['n']} | FPR {_f(d['fpr'])} | {_ci(d.get('fpr_ci95'))} |")
    return "\n".join(rows)


def quality_languages() -> str:
    """Corpus test split per language."""
    r = _load("quality_corpus_test")
    if r is None:
        return "_No corpus results yet: run `toolbound bench`._"
    rows = ["| lang | n | precision | recall (95% interval) | FPR (95% interval) | F1 |",
            "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for lang, m in r["languages"].items():
        rows.append(f"| {lang} | {m['n']} | {_f(m['precision'])} | {_f(m['recall'])} ({_ci(m.get('recall_ci95'))}) | "
                    f"{_f(m['fpr'])} ({_ci(m.get('fpr_ci95'))}) | {_f(m['f1'])} |")
    return "\n".join(rows)


def model_card() -> str:
    """What the shipped passage model is, what it was trained on, and how its threshold was chosen."""
    from toolbound._detect.model import WINDOW_META_OFF, WINDOW_PAD

    p = ROOT / "src" / "toolbound" / "_detect" / "model.json"
    if not p.exists():
        return "_No trained model ships in this checkout: rules alone decide._"
    m = json.loads(p.read_text(encoding="utf-8"))
    tr, tc = m["training"], m["threshold_choice"]
    size = (p.parent / m["weights_file"]).stat().st_size
    dev, rules = tc["dev"], tc["dev_rules_only"]
    return "\n".join([
        f"- model v{m['version']}: logistic regression over passages, 2^{m['hash_bits']} hashed features "
        f"({m['features']['hashed']}) plus {len(m['passage']['dense_names'])} engineered passage features "
        "(rule hits by family among them); a document combiner over "
        f"{', '.join(m['doc']['names'])}"
        + (f"; a rule score of {m['doc']['rule_floor']} or more flags on its own." if m['doc'].get('rule_floor')
           is not None else "."),
        *([f"- document bag of words: a logistic regression over the distinct tokens of the whole document "
           f"(the first {m['doc_bow']['max_tokens']:,}), in a second block of 2^{m['hash_bits']} weights; its logit "
           "is one input of the document combiner"
           + (", floored at 0 when the document's best passage logit is above 0 (round 190: the register of "
              "the document may argue for such a passage, never against it)." if m["doc"].get("bow_floor")
              else ".")] if m.get("doc_bow") else []),
        f"- window floor (round 159): when a document's best passage has a positive logit and the document has "
        + ("no discussion words (test-spec words such as \"test\" or \"expected\" no longer switch it off "
           "since round 199)" if WINDOW_META_OFF is None else
           f"no discussion words and fewer than {WINDOW_META_OFF} test-spec words")
        + f", the text from {WINDOW_PAD} characters before that passage to "
        f"{WINDOW_PAD} after is scored as a document of its own, and the larger score stands once it reaches "
        "the threshold (`Model.score`); the dev figures below are the combiner's, before this floor.",
        f"- weights: `{m['weights_file']}` ({size:,} bytes, {m['weights_dtype']}, SHA-256 "
        f"`{m['weights_sha256'][:16]}…`), read with the standard library only.",
        f"- trained on the corpus **{tr['split']}** split"
        + (f" plus the {tr['extra_records']} records of the train-only rule-development set "
           "`corpus/augment_train.jsonl` (train-split hosts)" if tr.get("extra_records") else " only")
        + f" ({tr['records']} records in all, SHA-256 "
        f"`{tr['train_sha256'][:16]}…`), seed {m['seed']}"
        + (f"; the passages of each injection labelled by the annotated spans of `corpus/{tr['span_supervision']}` "
           "(inside a span: positive; elsewhere in the injection: negative)" if tr.get("span_supervision") else "")
        + (f"; plus {tr['twins']}" if tr.get("twins") else "")
        + "; `python -m toolbound._detect.train --check` retrains and verifies the shipped bytes.",
        f"- threshold chosen on the **{tc['split']}** split: {tc['rule']} (raw logit {tc['logit']:.4f}, "
        f"shifted to score {tc['calibrated_threshold']}; rule floor {tc.get('rule_floor')}). On dev: recall "
        f"{dev['recall']:.3f} at FPR {dev['fpr']:.3f} (rules alone: recall {rules['recall']:.3f}, FPR "
        f"{rules['fpr']:.3f}). The test split is never used for training or tuning.",
    ])


def readme_sections() -> dict[str, Callable[[], str]]:
    return {"quality": quality_summary, "quality-targets": quality_targets, "quality-intervals": quality_intervals, "quality-families": quality_families,
            "quality-languages": quality_languages, "model-card": model_card}


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    import os

    from toolbound._cli import main

    os.chdir(ROOT)
    raise SystemExit(main(["bench", "--data", str(Path("corpus") / "twins_test.jsonl"), "--data", "shared",
                           *sys.argv[1:]]))
