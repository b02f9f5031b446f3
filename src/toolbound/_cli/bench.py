"""``toolbound bench``: measure detection quality on the corpus test split and extra data sets."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from toolbound._cli._io import add_classifier_option, fail_usage, use_classifier


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench", help="measure detection quality (corpus test split, public data sets)",
        description="Score the corpus split (default: test) and any extra labelled JSONL files with "
        "detect(), write benchmarks/results/quality_<name>.json per data set and quality.json, and "
        "print a summary table: precision, recall, FPR, F1, and the recall reachable at FPR <= 1%% / 2%%. "
        "Run it from the repository root. Extra files are read where they are (never copied) and "
        "their texts never appear in the results.")
    p.add_argument("--corpus", default="corpus/corpus.jsonl", metavar="FILE",
                   help="the corpus JSONL with a split field (default: corpus/corpus.jsonl)")
    p.add_argument("--split", default="test", choices=("train", "dev", "test"),
                   help="which corpus split to score (default: test)")
    p.add_argument("--no-corpus", action="store_true", help="score only the --data files")
    p.add_argument("--data", action="append", default=[], metavar="FILE|shared",
                   help="an extra labelled JSONL file (id, text, label, optional family/lang); repeatable. "
                   "'shared' means every *.jsonl in ../shared/datasets/ (skipped with a note if absent)")
    p.add_argument("--out", default=str(Path("benchmarks") / "results"), metavar="DIR",
                   help="where the JSON results go (default: benchmarks/results)")
    add_classifier_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from toolbound._bench import render_intervals, render_table, run as run_bench, shared_datasets

    corpus = None if args.no_corpus else Path(args.corpus)
    if corpus is not None and not corpus.is_file():
        return fail_usage(f"no corpus at {corpus} (run from the repository root, build the corpus with "
                          "corpus/tools/build.py, or pass --corpus FILE / --no-corpus)")
    data: list[Path] = []
    for d in args.data:
        if d == "shared":
            # next to the repository: the current directory (the CLI runs from the repository
            # root), else the repository holding the corpus file
            found = shared_datasets(Path.cwd())
            if not found and corpus is not None:
                found = shared_datasets(corpus.resolve().parent.parent)
            if not found:
                sys.stderr.write("note: ../shared/datasets/ not found next to this directory; skipped\n")
            data.extend(found)
            continue
        p = Path(d)
        if not p.is_file():
            return fail_usage(f"--data {d}: no such file")
        data.append(p)
    if corpus is None and not data:
        return fail_usage("nothing to score: give a corpus or --data files")
    if args.classifier is not None:
        err = use_classifier(args.classifier)
        if err is not None:
            return err
    try:
        summary = run_bench(corpus=corpus, split=args.split, data=data, out_dir=Path(args.out),
                            log=lambda m: sys.stderr.write(m + "\n"))
    except ValueError as exc:
        return fail_usage(str(exc))
    m = summary["model"]
    print(f"scorer: {m['scorer']}; threshold {m['threshold']}")
    print(render_table(summary))
    print()
    print("95% bootstrap intervals (records resampled within each class, 1,000 times):")
    print(render_intervals(summary))
    print(f"results: {Path(args.out) / 'quality.json'} and quality_<name>.json per data set")
    return 0
