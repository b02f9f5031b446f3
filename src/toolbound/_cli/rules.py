"""``toolbound rules``: list the detection rules, or check every pack and every rule's examples."""

from __future__ import annotations

import argparse
import sys

from toolbound._cli._io import fail_usage, write_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "rules", help="list or check the detection rule packs",
        description="'list' prints every rule (id, family, severity, languages). 'check' validates "
        "every pack against detectors/schema.json, compiles every pattern and runs every rule's "
        "examples through the scanner; exit 1 with a report when anything fails. Patterns named in "
        "the folder's checked_patterns.txt compile when their rule first runs, others at load; "
        "'check --write-checked' rewrites that list, and the analyses of every pattern the scanner "
        "reads from pattern_analysis.json, after a clean check.")
    p.add_argument("action", choices=("list", "check"))
    p.add_argument("--dir", metavar="DIR", help="a folder of rule packs (default: the shipped packs)")
    p.add_argument("--json", action="store_true", help="list: print JSON instead of a table")
    p.add_argument("--write-checked", action="store_true",
                   help="check: when every check passes, write the folder's checked_patterns.txt and "
                        "pattern_analysis.json")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from toolbound._detect.packs import RulePackError, load_rules

    if args.write_checked and args.action != "check":
        return fail_usage("--write-checked goes with 'check'")
    if args.action == "list":
        try:
            rules = load_rules(args.dir)
        except RulePackError as exc:
            sys.stderr.write(f"toolbound: rule pack error: {exc}\n")
            return 1
        if args.json:
            write_json([{"id": r.id, "family": r.family, "severity": r.severity,
                         "languages": list(r.languages), "weight": r.weight, "status": r.status}
                        for r in rules])
            return 0
        width = max(len(r.id) for r in rules)
        fam = max(len(r.family) for r in rules)
        for r in rules:
            sys.stdout.write(f"{r.id:<{width}}  {r.family:<{fam}}  {r.severity:<6}  {','.join(r.languages)}\n")
        return 0
    return _check(args.dir, args.write_checked)


def _superset_line(rules: list) -> str:  # type: ignore[type-arg]
    """How many rules the scanner can skip with an RE2 superset (the others always run their windows)."""
    from toolbound._detect.superset import AVAILABLE, Superset

    if not AVAILABLE:
        return "note: RE2 (google-re2) is not installed: no rule is skipped by its superset (slower, same findings)"
    have, total = Superset([r.patterns if r.compiled else () for r in rules]).coverage()
    return f"RE2 supersets: {have} of {total} rules with patterns (the others always run their windows)"


def _check(directory: str | None, write: bool = False) -> int:
    from toolbound._detect.check import check_packs, unchecked_patterns
    from toolbound._detect.packs import RulePackError, find_packs_dir, write_checked
    from toolbound._detect.analysis import ANALYSIS_FILE, stale_keys, write_file

    try:
        rules, failures = check_packs(directory)
    except RulePackError as exc:
        sys.stderr.write(f"FAIL rule pack: {exc}\n")
        return 1
    except OSError as exc:  # pragma: no cover - unreadable folder
        return fail_usage(str(exc))
    n_examples = sum(len(r.examples_match) + len(r.examples_no_match) for r in rules)
    packs = len({r.source for r in rules})
    for f in failures:
        sys.stdout.write(f"FAIL {f.describe()}\n")
    status = "FAILED" if failures else "ok"
    sys.stdout.write(f"{status}: {packs} packs, {len(rules)} rules, {n_examples} examples, "
                     f"{len(failures)} failing\n")
    if failures:
        return 1
    sys.stdout.write(_superset_line(rules) + "\n")
    folder = directory if directory is not None else find_packs_dir()
    if write:
        sys.stdout.write(f"wrote {write_checked(folder, rules)}\n")
        sys.stdout.write(f"wrote {write_file(folder, rules)}\n")
    else:
        n = unchecked_patterns(directory, rules)
        if n:
            sys.stdout.write(f"note: {n} patterns are not in checked_patterns.txt (compiled at every load); "
                             "'toolbound rules check --write-checked' lists them\n")
        n = len(stale_keys(folder, rules))
        if n:
            sys.stdout.write(f"note: {n} patterns are not in {ANALYSIS_FILE} for this code (analysed at run "
                             "time, slower at first); 'toolbound rules check --write-checked' writes them\n")
    return 0
