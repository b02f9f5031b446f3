"""Stage 6, act: the policy's action for the highest severity among the findings.

``ctx.policy.actions`` maps ``low``/``medium``/``high`` to an action; the highest severity found
(normalisation and detection findings alike) picks it, and it is recorded in ``ctx.action`` and
``meta["action"]``:

- ``annotate`` (the default): nothing changes; the findings are listed with the result;
- ``redact``: every flagged string (a span, or any string with a finding whose own severity maps to
  an action other than ``annotate``) is replaced, in the envelope and in its span, by a
  placeholder that names the finding, e.g. ``[redacted by toolbound: override (high)]``;
- ``block``: the whole result becomes ``untrusted_content_blocked``; the message says what was
  found and where (families, severities, paths) and never echoes the content;
- ``require_approval``: the result is returned as is, with ``needs_approval`` set (the header
  says ``needs_human_approval=true``).

Normalisation findings are mostly ``low`` (invisible characters, role labels, defanged links,
hidden HTML), so they trigger nothing stronger than annotate unless the policy sets ``low``; tag
character smuggling and forged boundary markers are ``high``.
"""

from __future__ import annotations

from toolbound._context import Context
from toolbound._envelope import ErrorInfo, Failure, Success, failure
from toolbound._jsonutil import replace_strings
from toolbound._spanrender import message_path
from toolbound._types import SEVERITY_RANK, Finding

_BY_RANK = {v: k for k, v in SEVERITY_RANK.items()}
MAX_LISTED = 8


def top_severity(findings: list[Finding]) -> str | None:
    rank = max((SEVERITY_RANK.get(f.severity, 0) for f in findings), default=0)
    return _BY_RANK.get(rank)


def _label(findings: list[Finding]) -> str:
    """``override (high), exfiltration (high)``: the families at the highest severity."""
    sev = top_severity(findings) or "low"
    fams = list(dict.fromkeys(f.family for f in findings if f.severity == sev))
    return ", ".join(f"{fam} ({sev})" for fam in fams[:3]) + (" ..." if len(fams) > 3 else "")


def placeholder_for(findings: list[Finding]) -> str:
    return f"[redacted by toolbound: {_label(findings)}]"


def describe(findings: list[Finding]) -> str:
    """What was found and where, without any of the content: ``override (high) at /body; ...``."""
    seen: dict[tuple[str, str], str] = {}
    for f in sorted(findings, key=lambda f: -SEVERITY_RANK.get(f.severity, 0)):
        seen.setdefault((f.family, f.path), f.severity)
    items = [f"{fam} ({sev}) at {message_path(path)}" for (fam, path), sev in seen.items()]
    more = len(items) - MAX_LISTED
    return "; ".join(items[:MAX_LISTED]) + (f"; and {more} more" if more > 0 else "")


def run(ctx: Context) -> None:
    if not ctx.findings or ctx.envelope is None:
        return
    sev = top_severity(ctx.findings)
    if sev is None:
        return
    actions = ctx.policy.actions
    action = actions.for_severity(sev)
    ctx.action = action
    ctx.meta["action"] = action
    if action == "annotate":
        return
    if action == "require_approval":
        ctx.needs_approval = True
        return
    if action == "block":
        detail = (f"the result was blocked by policy (actions.{sev} = block): found "
                  f"{describe(ctx.findings)}")
        ctx.fail(failure("untrusted_content_blocked", detail))
        return
    if action == "redact":
        _redact(ctx)


def _redact(ctx: Context) -> None:
    actions = ctx.policy.actions
    by_path: dict[str, list[Finding]] = {}
    for f in ctx.findings:
        by_path.setdefault(f.path, []).append(f)
    flagged = {p: fs for p, fs in by_path.items()
               if actions.for_severity(top_severity(fs) or "low") != "annotate"}
    if not flagged:
        return
    replacements = {p: placeholder_for(fs) for p, fs in flagged.items()}
    for span in ctx.spans:
        rep = replacements.get(span.path)
        if rep is not None:
            span.text = rep
            span.redacted = True
    env = ctx.envelope
    if isinstance(env, Success):
        ctx.envelope = Success.model_construct(ok=True, data=replace_strings(env.data, replacements))
    elif isinstance(env, Failure) and "/error/message" in replacements and ctx.error_from_tool:
        ctx.envelope = Failure(error=ErrorInfo(code=env.error.code,
                                               message=replacements["/error/message"],
                                               retryable=env.error.retryable))
    ctx.meta["redacted"] = sorted(replacements)
    ctx.strings = [(p, replacements.get(p, t)) for p, t in ctx.strings]
