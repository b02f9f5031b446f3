"""``toolbound scan``: run the detection engine over one text, or over JSONL records."""

from __future__ import annotations

import argparse
import json
import sys

from toolbound._cli._io import (UsageError, add_classifier_option, fail_usage, read_text, use_classifier,
                               write_json)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "scan", help="scan text for instructions aimed at the model",
        description="Scan one text (a file, or - / nothing for standard input) and print the detection "
        "as JSON: flagged, score and findings (rule id, family, severity, offsets, reason). With "
        "--jsonl, read records with 'id' and 'text' and write one JSON line per record. Exit 0 when "
        "the scan ran, whatever it found; 2 for usage errors.")
    p.add_argument("file", nargs="?", default="-", metavar="FILE|-", help="input (default: stdin)")
    p.add_argument("--jsonl", action="store_true",
                   help="the input is JSON Lines, one record per line with 'id' and 'text'")
    p.add_argument("--threshold", type=float, metavar="T",
                   help="flag at or above this score, between 0 and 1 (default 0.5)")
    add_classifier_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from toolbound._detect import detect

    if args.threshold is not None and not 0.0 <= args.threshold <= 1.0:
        return fail_usage("--threshold must be between 0 and 1")
    if args.classifier is not None:
        err = use_classifier(args.classifier)
        if err is not None:
            return err
    try:
        text = read_text(args.file)
    except UsageError as exc:
        return fail_usage(str(exc))
    if not args.jsonl:
        write_json(detect(text, threshold=args.threshold).to_dict())
        return 0
    records = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            return fail_usage(f"line {n} is not valid JSON ({exc.msg}, column {exc.colno})")
        if not isinstance(rec, dict) or not isinstance(rec.get("text"), str) or "id" not in rec:
            return fail_usage(f"line {n}: each record needs an 'id' and a string 'text'")
        records.append(rec)
    out = sys.stdout
    for rec in records:  # the rule packs load once, on the first record
        d = detect(rec["text"], threshold=args.threshold).to_dict()
        out.write(json.dumps({"id": rec["id"], **d}, ensure_ascii=False) + "\n")
    return 0
