"""``toolbound check-args``: validate one tool call's arguments, print the result envelope."""

from __future__ import annotations

import argparse
import json
import os

from toolbound._cli._io import UsageError, fail_usage, read_text, write_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check-args", help="validate tool-call arguments against an input schema",
        description="Validate the arguments of one tool call (a JSON file, or - / nothing for "
        "standard input) against the tool's input JSON Schema, then optionally check that path "
        "arguments stay inside a workspace. Prints {\"ok\": true, \"data\": <arguments>} or the "
        "error envelope the model would get. Exit 0 whenever an envelope was printed (invalid "
        "arguments included); 2 for usage errors (missing or invalid schema, bad options).")
    p.add_argument("args_file", nargs="?", default="-", metavar="ARGS.json|-",
                   help="the arguments as JSON (default: stdin)")
    p.add_argument("--schema", required=True, metavar="SCHEMA.json", help="the tool's input JSON Schema")
    p.add_argument("--workspace", metavar="DIR",
                   help="path arguments must stay inside this directory (see --field)")
    p.add_argument("--field", action="append", metavar="NAME",
                   help="a path argument to check against --workspace: a top-level name or a JSON "
                   "Pointer (repeatable; default: path)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import toolbound
    from toolbound._args import validate_args
    from toolbound._checks import within_workspace
    from toolbound._envelope import Success

    try:
        if args.args_file == "-" and args.schema == "-":
            raise UsageError("the schema and the arguments cannot both come from standard input")
        schema_text = read_text(args.schema)
        try:
            schema = json.loads(schema_text)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{args.schema} is not valid JSON (line {exc.lineno}, column {exc.colno}: "
                             f"{exc.msg})") from None
        checks = []
        if args.field and not args.workspace:
            raise UsageError("--field names path arguments to check against --workspace; give "
                             "--workspace DIR too")
        if args.workspace:
            if not os.path.isdir(args.workspace):
                raise UsageError(f"--workspace {args.workspace} is not a directory")
            checks.append(within_workspace(args.workspace, *(args.field or ["path"])))
        raw = read_text(args.args_file).encode("utf-8", "surrogateescape")  # bytes: bad UTF-8 is reported
    except UsageError as exc:
        return fail_usage(str(exc))
    except (TypeError, ValueError) as exc:  # a bad --field
        return fail_usage(str(exc))
    try:
        outcome = validate_args(raw, schema, checks=checks)
    except toolbound.InvalidSchemaError as exc:
        return fail_usage(f"{args.schema}: {exc}")
    if isinstance(outcome, dict):
        write_json(Success(data=outcome).model_dump(mode="json"))
    else:
        write_json(outcome.model_dump(mode="json"))
    return 0
