"""Stage 5, detect: every string that reaches the model is scanned by the detection engine.

Each string of the result (data values, or the error message) is scanned on its own and, for
payloads split across fields, as part of the joined text (``toolbound._detect.scan_strings``).
A string's findings are kept when the string's score reaches the effective threshold (policy
``threshold``, else the engine's default); weak evidence below it is counted in the metadata but
not reported, so a single stray word never becomes a finding that drives an action. Findings from
normalisation (invisible characters, template tokens, hidden HTML) are always kept. Kept findings
are attached to their span (by path) and to ``ctx.findings``. A payload the engine decodes from a
string (base64, hex, URL-encoding, ...) is scored as a text of its own and the string's score is the
larger of the two (``score.with_decoded``); when the decoded text decides, a ``model.decoded``
finding marks the encoded run.

Within one call, a text that occurs in several fields (the same comment body, status or label
repeated down a list) is scanned and scored once: scanning and scoring are pure functions of the
text, so its findings are copied to each path (:func:`scan_all` gives exactly what
``scan_strings`` gives). The cross-field scan still sees every field in order.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolbound._context import Context
from toolbound._types import Finding


def scan_all(items: Sequence[tuple[str, str]]) -> list[Finding]:
    """``scan_strings(items)``, in the same order, scanning each distinct text once."""
    return scan_all_decoded(items)[0]


def scan_all_decoded(items: Sequence[tuple[str, str]]) -> tuple[list[Finding], dict[str, tuple]]:
    """:func:`scan_all`, plus the runs the engine decoded from each string, by path
    (``api.scan_strings_decoded``)."""
    from toolbound._detect import api

    texts = [t for _, t in items]
    if len(items) < 2 or len(set(texts)) == len(texts):
        return api.scan_strings_decoded(items)
    from toolbound._detect.engine import get_scanner

    scanner = get_scanner()
    seen: dict[str, tuple[list[Finding], tuple]] = {}
    out: list[Finding] = []
    decoded: dict[str, tuple] = {}
    memo = api.hit_memo(texts)  # each text's prefilter hits, reused by the cross-field scan
    for path, text in items:
        hit = seen.get(text)
        if hit is None:
            api.require_str(path, text)
            # what scan_strings_decoded gives for this one item (no cross-field part), without its
            # per-call set-up: the text's findings (offsets into it) and its decoded runs
            hit = seen[text] = scanner.scan_decoded(text, memo=memo)
        if hit[0]:
            out.extend(f.at(path) for f in hit[0])
        if hit[1]:
            decoded[path] = hit[1]
    out.extend(api._cross_field(scanner, [p for p, _ in items], texts, memo, own=out, plain=not decoded))
    return out, decoded


def run(ctx: Context) -> None:
    if not ctx.strings:
        return
    from toolbound._detect.api import default_threshold
    from toolbound._detect import score as score_mod
    from toolbound._detect.score import classifier_score, score, with_decoded

    threshold = ctx.policy.threshold if ctx.policy.threshold is not None else default_threshold()
    clf = score_mod.CLASSIFIER
    if clf is not None and hasattr(clf, "score_many"):
        clf.score_many([t for _, t in ctx.strings])  # one batched model run; score() then reads its cache
    by_path: dict[str, list[Finding]] = {}
    found, decoded = scan_all_decoded(ctx.strings)
    for f in found:
        fs = by_path.get(f.path)
        if fs is None:
            by_path[f.path] = [f]
        else:
            fs.append(f)
    kept: list[Finding] = []
    scores: dict[str, float] = {}
    clean_scores: dict[str, float] = {}  # text -> score without findings (the common case)
    below = 0
    for path, text in ctx.strings:
        fs = by_path.get(path)
        if fs:
            s = score(text, fs)
        elif text in clean_scores:
            s = clean_scores[text]
        else:
            s = clean_scores[text] = score(text, [])
        # What the engine decoded from the string (base64, hex, ...) is scored too.
        s, from_decoded = with_decoded(s, decoded.get(path, ()), threshold)
        if s >= threshold:
            scores[path] = round(s, 4)
            if from_decoded is not None:
                kept.extend(fs or ())
                kept.append(from_decoded.at(path))
            elif fs:
                kept.extend(fs)
            else:
                p = classifier_score(text)
                if p is not None and p >= s:
                    kept.append(Finding("classifier", "instruction", "medium" if s < 0.8 else "high", 0,
                                        len(text), "the local transformer classifier scores this text as "
                                        "an injection", path, s, "classifier"))
                else:
                    kept.append(Finding("model.passage", "instruction", "medium" if s < 0.8 else "high", 0,
                                        len(text), "the statistical model scores this text as "
                                        "instructions aimed at the assistant", path, s, "model"))
        elif fs:
            below += len(fs)
    ctx.meta["detection"] = {"threshold": threshold, "flagged_paths": scores, "weak_findings_dropped": below,
                             "strings_scanned": len({p for p, _ in ctx.strings})}
    ctx.findings.extend(kept)
    if kept:
        spans = {s.path: s for s in ctx.spans}
        for f in kept:
            span = spans.get(f.path)
            if span is not None:
                span.findings.append(f)
