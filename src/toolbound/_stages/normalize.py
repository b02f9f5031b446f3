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

Within one call each distinct text is normalised once (``normalize_text`` is a pure function of
the text and the field's options). The walk over the data's leaves is kept, with the normalised
values, for the quarantine stage (``ctx.leaves``).
"""

from __future__ import annotations

from toolbound._context import Context
from toolbound._envelope import ErrorInfo, Failure, Success
from toolbound._jsonutil import replace_strings
from toolbound._normalize import normalize_text
from toolbound._types import Finding

EMPTY_MESSAGE = "(the tool's error message was empty after invisible characters were removed)"


def run(ctx: Context) -> None:
    env = ctx.envelope
    pol = ctx.policy
    allow = tuple(pol.allow_domains)
    changed = 0
    if isinstance(env, Success):
        changes: dict[str, str] = {}
        leaves = pol.leaves(env.data)
        done: dict[tuple[str, bool], tuple[str, list[Finding]]] = {}
        html_any = pol.html is not False
        for i, (path, text, ext) in enumerate(leaves):
            if not ext or type(text) is not str:
                continue
            html = html_any and pol.is_html(path)
            key = (text, html)
            got = done.get(key)
            if got is None:
                got = done[key] = normalize_text(text, html=html, allow_domains=allow)
            new, findings = got
            if findings:
                ctx.findings.extend(f.at(path) for f in findings)
            if new != text:
                changes[path] = new
                leaves[i] = (path, new, ext)
        if changes:
            ctx.envelope = Success.model_construct(ok=True, data=replace_strings(env.data, changes))
            changed = len(changes)
        ctx.leaves = leaves
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
