"""Stage 3, normalize: external strings are made safe to show, and every change is a finding.

For each string the policy marks external (:meth:`EffectivePolicy.is_external`; a tool's own
error message too), :func:`toolbound._normalize.normalize_text` removes invisible characters,
bidi controls, tag characters and variation-selector abuse, makes chat-template and role tokens
inert, defangs links and images outside ``allow_domains`` and, for HTML fields (policy ``html``),
reduces HTML to text with hidden content surfaced. The normalised text replaces the string in the
envelope (so ``structuredContent`` and the model text agree); the findings (stage ``normalize``,
``html`` or ``links``) carry the string's path and offsets into the normalised text.

Internal strings are left exactly as they are. The payload hash in provenance is taken from the
coerced payload before this stage (``ctx.meta["canonical"]``).
"""

from __future__ import annotations

from toolbound._context import Context
from toolbound._envelope import ErrorInfo, Failure, Success
from toolbound._jsonutil import replace_strings
from toolbound._normalize import normalize_text

EMPTY_MESSAGE = "(the tool's error message was empty after invisible characters were removed)"


def run(ctx: Context) -> None:
    env = ctx.envelope
    pol = ctx.policy
    allow = tuple(pol.allow_domains)
    changed = 0
    if isinstance(env, Success):
        changes: dict[str, str] = {}
        for path, text in pol.external_strings(env.data):
            new, findings = normalize_text(text, html=pol.is_html(path), allow_domains=allow)
            if findings:
                ctx.findings.extend(f.at(path) for f in findings)
            if new != text:
                changes[path] = new
        if changes:
            ctx.envelope = Success.model_construct(ok=True, data=replace_strings(env.data, changes))
            changed = len(changes)
    elif isinstance(env, Failure) and ctx.error_from_tool:
        path = "/error/message"
        text = env.error.message
        new, findings = normalize_text(text, html=pol.is_html(path), allow_domains=allow)
        ctx.findings.extend(f.at(path) for f in findings)
        if new != text:
            message = new if new.strip() else EMPTY_MESSAGE
            ctx.envelope = Failure(error=ErrorInfo(code=env.error.code, message=message,
                                                   retryable=env.error.retryable))
            changed = 1
    if changed:
        ctx.meta["normalized_strings"] = changed
