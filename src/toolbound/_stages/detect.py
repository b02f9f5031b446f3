"""Stage 5, detect: every string that reaches the model is scanned by the detection engine.

Each string of the result (data values, or the error message) is scanned on its own and, for
payloads split across fields, as part of the joined text (``toolbound._detect.scan_strings``).
A string's findings are kept when the string's score reaches the effective threshold (policy
``threshold``, else the engine's default); weak evidence below it is counted in the metadata but
not reported, so a single stray word never becomes a finding that drives an action. Findings from
normalisation (invisible characters, template tokens, hidden HTML) are always kept. Kept findings
are attached to their span (by path) and to ``ctx.findings``.
"""

from __future__ import annotations

from collections import defaultdict

from toolbound._context import Context
from toolbound._types import Finding


def run(ctx: Context) -> None:
    if not ctx.strings:
        return
    from toolbound._detect.api import default_threshold, scan_strings
    from toolbound._detect.score import score

    threshold = ctx.policy.threshold if ctx.policy.threshold is not None else default_threshold()
    texts = dict(ctx.strings)
    by_path: dict[str, list[Finding]] = defaultdict(list)
    for f in scan_strings(ctx.strings):
        by_path[f.path].append(f)
    kept: list[Finding] = []
    scores: dict[str, float] = {}
    below = 0
    for path, text in ctx.strings:
        fs = by_path.get(path)
        s = score(text, fs or [])
        if s >= threshold:
            scores[path] = round(s, 4)
            if fs:
                kept.extend(fs)
            else:
                kept.append(Finding("model.passage", "instruction", "medium" if s < 0.8 else "high", 0,
                                    len(text), "the statistical model scores this text as instructions "
                                    "aimed at the assistant", path, s, "model"))
        elif fs:
            below += len(fs)
    ctx.meta["detection"] = {"threshold": threshold, "flagged_paths": scores, "weak_findings_dropped": below,
                             "strings_scanned": len(texts)}
    ctx.findings.extend(kept)
    if kept:
        spans = {s.path: s for s in ctx.spans}
        for f in kept:
            span = spans.get(f.path)
            if span is not None:
                span.findings.append(f)
