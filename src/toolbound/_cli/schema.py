"""``toolbound schema``: print the JSON Schemas toolbound defines."""

from __future__ import annotations

import argparse

from toolbound._cli._io import write_json


def _schemas() -> dict[str, object]:
    from toolbound._envelope import envelope_json_schema
    from toolbound._policy import Policy

    return {
        "envelope": envelope_json_schema,
        "policy": lambda: Policy.model_json_schema(),
    }


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("schema", help="print a JSON Schema (envelope, policy)",
                       description="Print one of toolbound's JSON Schemas.")
    p.add_argument("name", choices=("envelope", "policy"), help="which schema")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    write_json(_schemas()[args.name]())  # type: ignore[operator]
    return 0
