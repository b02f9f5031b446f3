"""``toolbound sanitize``: read one JSON tool result, print the sanitized result."""

from __future__ import annotations

import argparse
import json

from toolbound._cli._io import UsageError, add_classifier_option, fail_usage, print_result, read_text, use_classifier


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sanitize", help="sanitize one JSON tool result",
        description="Read one tool result as JSON (a file, or - / nothing for standard input) and "
        "print the sanitized result. Exit 0 whenever an envelope was produced, error envelopes "
        "included; 2 for usage errors.")
    p.add_argument("file", nargs="?", default="-", metavar="FILE|-", help="JSON input (default: stdin)")
    p.add_argument("--tool", help="the tool's name (selects its policy table)")
    p.add_argument("--policy", metavar="FILE", help="a TOML policy file")
    p.add_argument("--output-schema", metavar="FILE", help="a JSON Schema the result must match")
    p.add_argument("--call-id", help="the call id to record in provenance")
    p.add_argument("--max-tokens", type=int, metavar="N",
                   help="token budget of the text the model sees (at least 64; default 8000); a bigger "
                   "result is cut and stored, see 'toolbound fetch'")
    add_classifier_option(p)
    p.add_argument("--format", choices=("json", "model"), default="json",
                   help="json: the full sanitized result (default); model: the text the model sees")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import toolbound
    from toolbound._envelope import failure

    if args.classifier is not None:
        err = use_classifier(args.classifier)
        if err is not None:
            return err
    try:
        text = read_text(args.file)
        policy = toolbound.load_policy(args.policy) if args.policy else None
        options = {}
        if args.output_schema:
            try:
                options["output_schema"] = json.loads(read_text(args.output_schema))
            except json.JSONDecodeError as exc:
                raise UsageError(f"{args.output_schema} is not valid JSON (line {exc.lineno}, "
                                 f"column {exc.colno}: {exc.msg})") from None
        if args.call_id:
            options["call_id"] = args.call_id
        if args.max_tokens is not None:
            options["max_tokens"] = args.max_tokens
    except UsageError as exc:
        return fail_usage(str(exc))
    except toolbound.PolicyError as exc:
        return fail_usage(str(exc))
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raw = toolbound.ToolError("invalid_output", failure(
            "invalid_output", f"the tool result is not valid JSON: {exc.msg} at line {exc.lineno}, "
            f"column {exc.colno} (character {exc.pos})").error.message)
    except RecursionError:
        raw = toolbound.ToolError("invalid_output", failure(
            "invalid_output", "the tool result is nested too deeply to parse").error.message)
    try:
        result = toolbound.sanitize(raw, tool=args.tool, policy=policy, **options)
    except (toolbound.InvalidSchemaError, toolbound.OptionError) as exc:
        return fail_usage(str(exc))
    print_result(result, args.format)
    return 0
