"""Stage 4, quarantine: the policy picks the external strings; each becomes a span.

Every string that reaches the model is listed in ``ctx.strings`` (path, text) for detection.
External ones (per :meth:`EffectivePolicy.is_external`; everything, for a tool without a policy
entry) become spans ``Q1``, ``Q2``, ... in document order, each with its path, the (already
normalised) text, the result's provenance and the findings normalisation recorded at its path.
A tool's own error message (as opposed to toolbound's catalogue message) is external too.

When the result is an object or an array and every value in it is external (no policy selector
covers any part of it as internal), ``ctx.whole`` is set: the spans stay one per string, but the
data is rendered as one quoted block (see ``toolbound._spanrender``) rather than one block per
string.
"""

from __future__ import annotations

from toolbound._context import Context, Span
from toolbound._envelope import Failure, Success
from toolbound._types import Finding


def run(ctx: Context) -> None:
    env = ctx.envelope
    prov = ctx.provenance
    if isinstance(env, Success):
        strings: list[tuple[str, str]] = []
        spans: list[Span] = []
        external_values = 0
        internal = 0
        leaves = ctx.leaves if ctx.leaves is not None else ctx.policy.leaves(env.data)
        ctx.leaves = None
        for p, v, ext in leaves:  # document order
            if type(v) is str:
                strings.append((p, v))
                if ext:
                    spans.append(Span(f"Q{len(spans) + 1}", p, v, [], "external", False, prov))
                else:
                    internal += 1
            elif ext:
                # Non-string external values (numbers, booleans, null) get no span but are not
                # trusted.
                external_values += 1
            else:
                internal += 1
        ctx.strings = strings
        ctx.spans = spans
        ctx.external_values = external_values
        ctx.whole = bool(spans) and not internal and isinstance(env.data, (dict, list))
    elif isinstance(env, Failure):
        ctx.strings = [("/error/message", env.error.message)]
        if ctx.error_from_tool:
            ctx.spans = [Span(id="", path="/error/message", text=env.error.message, provenance=prov)]
    by_path: dict[str, list[Finding]] = {}
    for f in ctx.findings:
        by_path.setdefault(f.path, []).append(f)
    for i, span in enumerate(ctx.spans, 1):
        span.id = f"Q{i}"
        if by_path:
            span.findings.extend(by_path.get(span.path, ()))
