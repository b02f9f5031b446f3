"""Stage 4, quarantine: the policy picks the external strings; each becomes a span.

Every string that reaches the model is listed in ``ctx.strings`` (path, text) for detection.
External ones (per :meth:`EffectivePolicy.is_external`; everything, for a tool without a policy
entry) become spans ``Q1``, ``Q2``, ... in document order. A tool's own error message (as opposed
to toolbound's catalogue message) is external too.
"""

from __future__ import annotations

from toolbound._context import Context, Span
from toolbound._envelope import Failure, Success
from toolbound._jsonutil import iter_leaves, iter_strings


def run(ctx: Context) -> None:
    env = ctx.envelope
    if isinstance(env, Success):
        ctx.strings = list(iter_strings(env.data))
        is_ext = ctx.policy.is_external
        ctx.spans = [Span(id="", path=p, text=t) for p, t in ctx.strings if is_ext(p)]
        # Non-string external values (numbers, booleans, null) get no span but are not trusted.
        ctx.external_values = sum(1 for p, v in iter_leaves(env.data)
                                  if not isinstance(v, str) and is_ext(p))
    elif isinstance(env, Failure):
        ctx.strings = [("/error/message", env.error.message)]
        if ctx.error_from_tool:
            ctx.spans = [Span(id="", path="/error/message", text=env.error.message)]
    for i, span in enumerate(ctx.spans, 1):
        span.id = f"Q{i}"
