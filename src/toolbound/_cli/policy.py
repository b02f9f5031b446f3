"""``toolbound policy``: check a policy file, or show the effective policy for one tool."""

from __future__ import annotations

import argparse
import os
import sys

from toolbound._cli._io import fail_usage, write_json
from toolbound._policy import Policy


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "policy", help="check a policy file or show a tool's effective policy",
        description="Work with TOML policy files. 'check' validates a file (exit 0 when valid, 1 "
        "when it has a problem, which is named with its key and the closest valid key); 'show' "
        "prints the effective policy for one tool as JSON.")
    ps = p.add_subparsers(dest="policy_command", metavar="ACTION")
    c = ps.add_parser("check", help="validate a policy file",
                      description="Validate a policy file: unknown keys, bad selectors, modes, "
                      "actions and domains are errors (exit 1); likely mistakes are warnings.")
    c.add_argument("file", metavar="FILE", help="the TOML policy file")
    c.set_defaults(func=run_check)
    s = ps.add_parser("show", help="print the effective policy for one tool as JSON",
                      description="Print the effective policy for one tool (defaults overlaid "
                      "with the tool's table) as JSON, with its SHA-256 as recorded in provenance. "
                      "Without --tool: what a tool with no table of its own gets.")
    s.add_argument("file", metavar="FILE", help="the TOML policy file")
    s.add_argument("--tool", help="the tool's name")
    s.set_defaults(func=run_show)
    p.set_defaults(func=lambda args: _help(p))


def _help(p: argparse.ArgumentParser) -> int:
    p.print_help(sys.stderr)
    return 2


def _load(path: str) -> Policy:
    from toolbound._policyfile import load_policy

    if not os.path.exists(path):
        raise FileNotFoundError(path)
    return load_policy(path)


def run_check(args: argparse.Namespace) -> int:
    import toolbound
    from toolbound._policyfile import policy_warnings

    try:
        pol = _load(args.file)
    except FileNotFoundError:
        return fail_usage(f"no such file: {args.file}")
    except toolbound.PolicyError as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    for w in policy_warnings(pol):
        sys.stderr.write(f"{args.file}: warning: {w}\n")
    names = ", ".join(pol.tools) or "none"
    sys.stdout.write(f"{args.file}: ok ({len(pol.tools)} tool table(s): {names})\n")
    return 0


def run_show(args: argparse.Namespace) -> int:
    import toolbound

    try:
        pol = _load(args.file)
    except FileNotFoundError:
        return fail_usage(f"no such file: {args.file}")
    except toolbound.PolicyError as exc:
        return fail_usage(str(exc))
    eff = pol.for_tool(args.tool)
    out = eff.model_dump(mode="json")
    out["field_trust"] = ("every string is external except those 'internal' covers"
                          if eff.external is None else "only the strings 'external' covers are external")
    out["policy_sha256"] = eff.digest()
    if args.tool is not None and not eff.has_entry:
        known = ", ".join(pol.tools) or "none"
        sys.stderr.write(f"toolbound: note: {args.tool!r} has no table in {args.file} (tables: "
                         f"{known}); showing the defaults it gets\n")
    write_json(out)
    return 0
