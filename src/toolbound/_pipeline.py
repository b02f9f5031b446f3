"""``sanitize()``: one pass through the stages, never raising on bad tool output."""

from __future__ import annotations

import importlib
import logging
import secrets
from typing import Any

from toolbound._context import Context
from toolbound._envelope import failure
from toolbound._jsonutil import canonical_json, sha256_hex
from toolbound._options import parse_options
from toolbound._policy import DEFAULT_POLICY, Policy
from toolbound._provenance import Provenance, SpanTrust, new_call_id, utc_now
from toolbound._result import SanitizedResult
from toolbound._stages import act, budget, coerce, detect, normalize, quarantine, render, validate

STAGES = (coerce, validate, normalize, quarantine, detect, act, budget, render)

log = logging.getLogger("toolbound")


def sanitize(raw: Any, *, tool: str | None = None, policy: Policy | str | None = None,
             **options: Any) -> SanitizedResult:
    """Turn any tool output into a sanitized, typed, provenance-carrying result.

    A result that passes every check is still not trusted: see ``SanitizedResult.trusted``.

    Args:
        raw: Any JSON value, an envelope-shaped dict, an MCP CallToolResult (dict or SDK object),
            or an exception instance.
        tool: The tool's name; selects the policy table and is recorded in provenance.
        policy: A :class:`toolbound.Policy` or a path to a TOML policy file.
        **options: See :class:`toolbound._options.Options` (``output_schema``, ``max_tokens``,
            ``call_id``, ``origin``, ``session``, ``store``, ``threshold``, limits...).

    Returns:
        A :class:`SanitizedResult`. Bad tool output gives an error envelope, never an exception.

    Raises:
        OptionError: an unknown or ill-typed option (caller misuse).
        PolicyError: the policy file is invalid (caller misuse).
        InvalidSchemaError: ``output_schema`` is not a valid JSON Schema (caller misuse).
    """
    opts = parse_options(options)
    pol = _resolve_policy(policy)
    if opts.output_schema is not None:
        from toolbound._schemacheck import compile_schema  # jsonschema loads only when needed

        compile_schema(opts.output_schema)
    eff = pol.for_tool(tool)
    if opts.quarantine is not None:
        eff = eff.model_copy(update={"quarantine": opts.quarantine})
    if opts.threshold is not None:
        eff = eff.model_copy(update={"threshold": opts.threshold})
    prov = Provenance(tool=tool, call_id=opts.call_id or new_call_id(), timestamp=utc_now(),
                      origin=dict(opts.origin or {}), payload_sha256="", policy_sha256=eff.digest())
    ctx = Context(raw=raw, tool=tool, policy=eff, options=opts, provenance=prov,
                  nonce=secrets.token_hex(6))
    for stage in STAGES:
        try:
            stage.run(ctx)
        except Exception as exc:  # a bug in a stage must not reach the agent as an exception
            log.exception("toolbound stage %s failed", stage.__name__)
            ctx.fail(failure("internal_error", f"toolbound's {stage.__name__.rsplit('.', 1)[-1]} "
                             f"stage failed ({type(exc).__name__})"))
            ctx.findings = []
            ctx.rendered = None
            try:
                render.run(ctx)
            except Exception:  # pragma: no cover - render of a failure cannot fail
                ctx.rendered = "[toolbound] status=error code=internal_error"
            break
    _finish_provenance(ctx)
    return SanitizedResult(ctx)


_SPAN_LIST: Any = None


def _span_list() -> Any:
    """The validator of ``list[SpanTrust]`` (built on first use: nothing heavy at import)."""
    global _SPAN_LIST
    if _SPAN_LIST is None:
        from pydantic import TypeAdapter

        _SPAN_LIST = TypeAdapter(list[SpanTrust])
    return _SPAN_LIST


def _resolve_policy(policy: Policy | str | Any) -> Policy:
    if policy is None:
        return DEFAULT_POLICY
    if isinstance(policy, Policy):
        return policy
    loader = importlib.import_module("toolbound._policyfile")
    return loader.load_policy(policy)  # type: ignore[no-any-return]


def _finish_provenance(ctx: Context) -> None:
    canonical = ctx.meta.get("canonical")
    if canonical is None:
        try:
            canonical = canonical_json(ctx.envelope.model_dump(mode="json") if ctx.envelope else None)
        except (TypeError, ValueError):
            canonical = ""
    ctx.provenance.payload_sha256 = sha256_hex(canonical)
    ctx.provenance.trust = "untrusted" if ctx.spans or ctx.external_values else "trusted"
    # one validator call for the list (a third faster than a model per span; model_construct is
    # slower still, being Python)
    ctx.provenance.spans = _span_list().validate_python(
        [{"id": s.id, "path": s.path, "trust": "external"} for s in ctx.spans]) if ctx.spans else []
