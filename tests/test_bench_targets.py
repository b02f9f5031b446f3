"""The README's generated table of issue 4's targets: a target reads met only when the figure meets it."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _module():
    spec = importlib.util.spec_from_file_location("bench_quality", ROOT / "benchmarks" / "bench_quality.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _summary(test_r1: float, inj: dict, email: dict, notinject_fpr: float) -> dict:
    base = {"recall": 0.5, "fpr": 0.01, "recall_at_fpr_1pct": 0.5, "recall_at_fpr_2pct": 0.5}
    return {"model": {"threshold": 0.5},
            "datasets": {"corpus_test": {**base, "recall_at_fpr_1pct": test_r1},
                         "injecagent": {**base, **inj}, "bipia_email": {**base, **email},
                         "bipia_table_code": dict(base),
                         "notinject": {"recall": None, "fpr": notinject_fpr, "recall_at_fpr_1pct": None,
                                       "recall_at_fpr_2pct": None}}}


def _rows(mod, summary) -> dict[str, list[str]]:
    mod._summary = lambda: summary
    out: dict[str, list[str]] = {}
    for line in mod.quality_targets().splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        out.setdefault(cells[0], []).append(cells[-1])
    return out


def test_targets_missed_read_no():
    mod = _module()
    rows = _rows(mod, _summary(0.969, {"recall_at_fpr_2pct": 0.899, "recall": 0.56, "fpr": 0.001},
                               {"recall": 0.9, "fpr": 0.35}, 0.0))
    assert rows["corpus_test"] == ["no"]
    assert rows["injecagent"] == ["no", "no"]  # 0.899 < 0.90; recall 0.56 does not beat the peers' 0.56
    assert rows["bipia_email"][1] == "no"      # FPR 0.35 is no lower than the TF-IDF peer's
    assert rows["notinject"] == ["no"]         # the best peer's FPR is 0: it cannot be beaten


def test_targets_met_read_yes():
    mod = _module()
    rows = _rows(mod, _summary(0.97, {"recall_at_fpr_2pct": 0.9, "recall": 0.8, "fpr": 0.002},
                               {"recall": 0.3, "fpr": 0.1}, 0.0))
    assert rows["corpus_test"] == ["**yes**"]
    assert rows["injecagent"][0] == "**yes**"
    assert rows["injecagent"][1].startswith("**yes**") and "bound" in rows["injecagent"][1]
    assert rows["bipia_email"][1] == "**yes**"


def test_no_results_yet():
    mod = _module()
    mod._summary = lambda: None
    assert mod.quality_targets() == mod.NO_RESULTS
