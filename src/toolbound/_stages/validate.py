"""Stage 2, validate: a declared output schema is enforced, failing closed.

A result whose data does not match the tool's ``output_schema`` becomes ``invalid_output``; it
never passes through unvalidated. Passing validation does not make a result trusted.
"""

from __future__ import annotations

from toolbound._context import Context
from toolbound._envelope import Success, failure


def run(ctx: Context) -> None:
    schema = ctx.options.output_schema
    if schema is None or not isinstance(ctx.envelope, Success):
        return
    from toolbound._schemacheck import compile_schema, problems  # jsonschema loads only when needed

    validator = compile_schema(schema)  # schema errors are caller misuse: raised in sanitize()
    found = problems(validator, ctx.envelope.data, limit=5)
    if not found:
        ctx.meta["output_schema"] = "valid"
        return
    detail = "the tool result does not match its output schema: " + "; ".join(p.sentence() for p in found)
    ctx.fail(failure("invalid_output", detail))
    ctx.meta["output_schema"] = "invalid"
    ctx.meta["output_schema_problems"] = [p.to_dict() for p in found]
