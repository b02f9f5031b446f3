"""``toolbound proxy``: serve an MCP server's tools through toolbound (see ``toolbound._proxy``)."""

from __future__ import annotations

import argparse
import logging
import math
import sys

from toolbound._cli._io import add_classifier_option, fail_usage, use_classifier


def _seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(v) or v <= 0:
        raise argparse.ArgumentTypeError(f"the timeout must be more than 0 seconds, got {text}")
    return v


def register(sub: argparse._SubParsersAction) -> None:
    from toolbound._proxy import DEFAULT_TIMEOUT, MIN_STARTUP_TIMEOUT

    p = sub.add_parser(
        "proxy", help="put toolbound in front of an MCP server (stdio)",
        usage="toolbound proxy --policy POLICY.toml [--log FINDINGS.jsonl] [--timeout SECONDS] "
              "-- COMMAND [ARGS...]",
        description="Start the MCP server COMMAND as a child process and serve its tools over "
        "standard input/output. Every call's arguments are checked against the tool's input schema "
        "and the policy's [tools.NAME.args] checks before they reach the server; every result is "
        "sanitized under the tool's policy (quarantine, detection, actions, token budget). Cut "
        "results are paged with the extra tool toolbound_fetch_more. Exit 2 for a bad policy, a "
        "missing command or other usage errors; 1 when the server fails to start.")
    p.add_argument("--policy", metavar="POLICY.toml", required=True, help="a TOML policy file")
    p.add_argument("--log", metavar="FINDINGS.jsonl",
                   help="append one JSON line per call with findings (provenance, findings, payload "
                   "SHA-256; never the payload text)")
    p.add_argument("--timeout", metavar="SECONDS", type=_seconds, default=DEFAULT_TIMEOUT,
                   help=f"how long a call may take before it becomes a 'timeout' error result "
                   f"(default {DEFAULT_TIMEOUT:g}); the server's start may take this or "
                   f"{MIN_STARTUP_TIMEOUT:g} s, whichever is longer")
    add_classifier_option(p)
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND [ARGS...]",
                   help="the MCP server to start, after '--'")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import toolbound
    from toolbound._proxy import ProxyStartError, check_command, run_proxy

    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="toolbound proxy: %(levelname)s: %(message)s")
    try:
        policy = toolbound.load_policy(args.policy)
    except toolbound.PolicyError as exc:
        return fail_usage(str(exc))
    if args.classifier is not None:
        err = use_classifier(args.classifier)
        if err is not None:
            return err
    try:
        command[0:1] = [check_command(command)]  # before the SDK's slow import
    except ProxyStartError as exc:
        return fail_usage(str(exc))
    try:
        import mcp  # noqa: F401
    except ImportError:
        return fail_usage("toolbound proxy needs the MCP SDK: pip install 'toolbound[mcp]'")
    try:
        return run_proxy(command, policy=policy, log_path=args.log, timeout=args.timeout)
    except ProxyStartError as exc:
        sys.stderr.write(f"toolbound: error: {exc}\n")
        return exc.code
