"""Rewrite the corpus's reserved host names into plausible ones (a robustness check for models).

The corpus's authors were asked to use reserved domains for attack targets (``attacker@evil.test``,
``https://collect.example/k``), so a model can learn ".test" as a sign of injection, and a split
written under the same convention cannot show it. This script writes a copy of a split in which
every host name ending in ``.test``, ``.example``, ``.invalid`` or ``.localhost``, or equal to or
under ``example.com|org|net``, becomes a plausible host name (``northlink.io``): the same original
always gives the same replacement (SHA-256 picks two words and a TLD), in positives and negatives
alike. Nothing else in the text changes. Round 18 of ``benchmarks/model_selection.md`` selects on it.

    python benchmarks/rewrite_domains.py --split dev --out /tmp/dev_rewritten.jsonl
    # rounds 22-26's "paired dev": dev plus the benign twins of its injections, rewritten
    python benchmarks/rewrite_domains.py --split dev --add corpus/twins_dev.jsonl --out /tmp/paired_dev.jsonl
    PYTHONPATH=src python benchmarks/dump_scores.py --data /tmp/dev_rewritten.jsonl --out /tmp/s.jsonl
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

FIRST = ("north", "blue", "rapid", "cloud", "data", "mail", "secure", "pixel", "nova", "harbor", "summit",
         "vertex", "bright", "delta", "orbit", "metro", "silver", "green", "prime", "swift")
SECOND = ("link", "hub", "works", "point", "base", "flow", "net", "sys", "lab", "zone", "gate", "line", "box",
          "wave", "desk", "port", "cast", "stack", "ware", "path")
TLDS = ("com", "net", "io", "co", "org", "app", "biz", "info", "dev", "cloud")

sys.path.insert(0, str(ROOT / "src"))
from toolbound._bench import load_jsonl  # noqa: E402  (one JSONL reader, errors name file and line)
from toolbound._detect.train import RESERVED_HOST_RE as RESERVED  # noqa: E402  (one matcher for both rewrites)


def replacement(host: str) -> str:
    h = hashlib.sha256(host.lower().encode()).digest()
    return f"{FIRST[h[0] % len(FIRST)]}{SECOND[h[1] % len(SECOND)]}.{TLDS[h[2] % len(TLDS)]}"


def rewrite(text: str) -> str:
    """``text`` with every reserved host name replaced (see the module docstring)."""
    return RESERVED.sub(lambda m: replacement(m.group()), text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(ROOT / "corpus" / "corpus.jsonl"))
    ap.add_argument("--split", default="dev")
    ap.add_argument("--add", action="append", default=[], metavar="FILE",
                    help="more records (same schema, e.g. corpus/twins_dev.jsonl) appended after --data's, "
                         "same --split filter")
    ap.add_argument("--keep-hosts", action="store_true", help="write the records without rewriting them")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    for f in [args.data, *args.add]:
        if not Path(f).is_file():
            print(f"no such file: {f}", file=sys.stderr)
            return 2
    try:
        recs = [r for f in [args.data, *args.add] for r in load_jsonl(Path(f), split=args.split or None)]
    except ValueError as e:  # names the file and line
        print(e, file=sys.stderr)
        return 2
    n = changed = 0
    with open(args.out, "w", encoding="utf-8") as out:
        for r in recs:
            text = r["text"]
            new = text if args.keep_hosts else rewrite(text)
            changed += new != text
            r["text"] = new
            n += 1
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"{n} records, {changed} rewritten -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
