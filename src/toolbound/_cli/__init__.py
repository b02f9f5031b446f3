"""The ``toolbound`` command line.

Each sub-command lives in its own module of this package, exposing ``register(subparsers)``, which
adds one parser and sets ``func=run`` on it; ``run(args) -> int`` returns the exit code. Exit codes:
0 when the command did its job (an error *envelope* included), 1 when a check found problems,
2 for usage errors.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# Sub-command modules, in the order they appear in --help.
COMMANDS: tuple[str, ...] = (
    "sanitize",
    "fetch",
    "scan",
    "rules",
    "schema",
    "check-args",
    "policy",
    "bench",
    "proxy",
)


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors say what to do next and exit with 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {message}\nRun '{self.prog} --help' for the options.\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    from toolbound import __version__

    parser = _Parser(
        prog="toolbound",
        description="Guard the boundary where tool results re-enter a language model's context. "
        "A type-valid result is not a trusted result.",
    )
    parser.add_argument("--version", action="version", version=f"toolbound {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(f"toolbound._cli.{name.replace('-', '_')}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def run() -> None:
    """Console-script entry point."""
    raise SystemExit(main())
