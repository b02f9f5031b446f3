"""Public entry points of detection: :func:`detect`, :func:`scan_strings`, :func:`default_threshold`.

Importing this module is cheap: the regex module, the rule packs and the compiled scanner load on
the first call (once per process).
"""

from __future__ import annotations

from collections.abc import Sequence

from toolbound._types import Detection, Finding

__all__ = ["clear_text_caches", "default_threshold", "detect", "scan_strings", "use_classifier"]

JOIN_SEPARATOR = "\n"

# The cross-field scan reuses each string's prefilter hits (see _cross_field) for results of at
# most this many characters: a few hundred bytes of hits per string saves a pass of the literal
# trie over their join, but kept for every string of a 10 MB result they raised its peak memory by
# about an eighth (benchmarks/bench_economy.py), where that pass is a small share of the time.
MEMO_MAX_CHARS = 1 << 18


def hit_memo(texts: Sequence[str]) -> dict | None:
    """A dict to keep the strings' prefilter hits in for the cross-field scan, or None when the
    result is too large (over :data:`MEMO_MAX_CHARS`) or has one string."""
    if len(texts) < 2 or sum(len(t) for t in texts) > MEMO_MAX_CHARS:
        return None
    return {}


def default_threshold() -> float:
    """The score at or above which :func:`detect` flags a text (0.5)."""
    from toolbound._detect.score import DEFAULT_THRESHOLD

    return DEFAULT_THRESHOLD


def detect(text: str, *, threshold: float | None = None) -> Detection:
    """Scan one text for instructions aimed at the model reading it.

    Args:
        text: The text as it would reach the model.
        threshold: Flag when the score is at least this (default :func:`default_threshold`).

    Returns:
        A :class:`~toolbound.Detection`: ``flagged``, ``score`` in [0, 1] and ``findings`` whose
        ``start``/``end`` are offsets into ``text``. Payloads the engine decodes (base64, hex,
        URL-encoding, ...) are scored as texts of their own and the larger score stands; when a
        decoded text decides a flag, a ``model.decoded`` finding marks its encoded run.
    """
    if not isinstance(text, str):
        raise TypeError(f"detect() takes a str, not {type(text).__name__}")
    if threshold is not None and not 0.0 <= threshold <= 1.0:
        raise ValueError("threshold must be between 0 and 1")
    impl = _IMPL or _load()
    findings, runs = impl[0]().scan_decoded(text)
    s = impl[1](text, findings)
    t = impl[2] if threshold is None else threshold
    if runs:
        # What the engine decoded (base64, hex, ...) is scored too; see score.with_decoded.
        s, finding = impl[3](s, runs, t)
        if finding is not None:
            findings = sorted([*findings, finding], key=lambda f: (f.start, -f.end, f.rule_id))
    return Detection(flagged=s >= t, score=s, findings=findings)


_IMPL: tuple = ()  # (get_scanner, score, DEFAULT_THRESHOLD), imported on the first call


def _load() -> tuple:
    """Import the engine and the scorer once (an import statement per call costs microseconds)."""
    global _IMPL
    from toolbound._detect.engine import get_scanner
    from toolbound._detect.score import DEFAULT_THRESHOLD, score, with_decoded

    _IMPL = (get_scanner, score, DEFAULT_THRESHOLD, with_decoded)
    return _IMPL


def clear_text_caches() -> None:
    """Forget the per-text answers kept for short texts (the scanner's findings and the model's
    scores of texts up to 64 characters), as in a process that has seen none of them; benchmarks
    call it so that no repetition is answered from an earlier one. Per-token caches stay."""
    from toolbound._detect.engine import get_scanner
    from toolbound._detect.model import get_model, weights_present

    get_scanner()._short.clear()
    if weights_present():
        get_model().clear_short()


def use_classifier(classifier):  # type: ignore[no-untyped-def]
    """Add a local transformer classifier to every score (``detect()``, ``sanitize()``, the CLI).

    Args:
        classifier: A directory holding ``model.onnx`` and ``tokenizer.json`` (see
            :class:`toolbound.OnnxClassifier`), an ``OnnxClassifier``, any callable
            ``text -> probability of injection``, or None to remove it.

    Returns:
        The classifier that was registered before (None if none), so a caller can restore it.

    The final score becomes the larger of toolbound's score and the classifier's probability. The
    setting is process-wide. Nothing is downloaded; ``onnxruntime`` and ``tokenizers`` (the
    ``classifier`` extra) load only here.
    """
    from toolbound._detect import score as score_mod
    from toolbound._detect.classifier import load_classifier

    new = load_classifier(classifier)
    old = score_mod.CLASSIFIER
    score_mod.CLASSIFIER = new
    return old


def scan_strings(items: Sequence[tuple[str, str]]) -> list[Finding]:
    """Scan the strings of one result: each on its own, and across field boundaries.

    Args:
        items: ``(json_pointer_path, text)`` pairs, in document order.

    Returns:
        Findings placed at their path (``Finding.path``) with offsets into that string. A payload
        split over consecutive fields is found on the strings joined with ``"\\n"``; it is reported on
        the first field it touches (offsets to that field's end), its reason says it spans fields and
        ``detail`` lists the paths it covers.
    """
    return scan_strings_decoded(items)[0]


def require_str(path: str, text: object) -> None:
    """The check every ``scan_strings`` item passes: a TypeError that names the path otherwise."""
    if not isinstance(text, str):
        raise TypeError(f"scan_strings() items must be (path, str) pairs; {path!r} is {type(text).__name__}")


def scan_strings_decoded(items: Sequence[tuple[str, str]], memo: dict | None = None
                         ) -> tuple[list[Finding], dict[str, tuple]]:
    """:func:`scan_strings`, plus the runs the engine decoded from each string (by path; strings
    with none are absent), for ``score.with_decoded``. ``memo``: where each string's prefilter hits
    are kept for the cross-field scan (a caller that scans the strings one call at a time passes
    the same dict, from :func:`hit_memo`, to every call and then to :func:`_cross_field`); by
    default :func:`hit_memo` of the items."""
    from toolbound._detect.engine import get_scanner

    scanner = get_scanner()
    out: list[Finding] = []
    texts: list[str] = []
    paths: list[str] = []
    decoded: dict[str, tuple] = {}
    if memo is None:
        memo = hit_memo([t for _, t in items if isinstance(t, str)])
    for path, text in items:
        require_str(path, text)
        paths.append(path)
        texts.append(text)
        found, runs = scanner.scan_decoded(text, memo=memo)
        out.extend(f.at(path) for f in found)
        if runs:
            decoded[path] = runs
    if len(texts) > 1:
        out.extend(_cross_field(scanner, paths, texts, memo, own=out, plain=not decoded))
    return out, decoded


def _cross_field(scanner, paths: list[str], texts: list[str], memo: dict | None = None,  # type: ignore[no-untyped-def]
                 own: Sequence[Finding] = (), plain: bool = False) -> list[Finding]:
    """Findings in the joined text that cross at least one field boundary. ``memo``: the strings'
    prefilter hits from their own scans (``Scanner.scan_decoded``), reused for the joined text
    rather than found again (``Scanner.joined_hits``). ``own``: the strings' own findings (placed at
    their paths). ``plain``: no string held an encoded run (``Scanner.scan``'s ``pieces_plain``).

    A match that reaches back over a separator only through the blanks or the line start its pattern
    reads before it (rules that begin ``(?:^|\\n\\s*|...)``) lies in one field: it is reported there,
    as a finding of that field, unless that field's own scan found it (a finding of the same rule
    there overlaps it). A match that does span fields is reported even where it holds a field's own
    finding: it says how far the payload reaches."""
    from bisect import bisect_left, bisect_right

    starts: list[int] = []
    pos = 0
    for t in texts:
        starts.append(pos)
        pos += len(t) + len(JOIN_SEPARATOR)
    joined = JOIN_SEPARATOR.join(texts)
    bounds = [s - 1 for s in starts[1:]]  # offsets of the separators
    w = scanner.max_window
    # The windows of w characters either side of each separator, merged: a window ends where the
    # next separator is more than two windows away.
    gap = 2 * w + 1
    cuts = [i for i in range(1, len(bounds)) if bounds[i] - bounds[i - 1] > gap]
    n = len(joined)
    windows = [(max(0, bounds[i] - w), min(n, bounds[j - 1] + 1 + w))
               for i, j in zip([0, *cuts], [*cuts, len(bounds)])] if bounds else []
    ends = [s + len(t) for s, t in zip(starts, texts)]
    index = {p: k for k, p in enumerate(paths)}
    covered: dict[str, list[tuple[int, int]]] = {}  # rule id -> its own findings, joined offsets
    for f in own:
        k = index.get(f.path)
        if k is not None:
            covered.setdefault(f.rule_id, []).append((starts[k] + f.start, starts[k] + f.end))
    out: list[Finding] = []
    seen: set[tuple[str, int, int]] = set()
    for a, e in windows:
        inner = [b - a for b in bounds[bisect_left(bounds, a):bisect_left(bounds, e)]]
        hits = None
        if memo:
            # The window's pieces: whole strings (their hits are in memo) and, at its ends, parts.
            pieces = [(max(starts[k], a) - a, min(ends[k], e) - a,
                       memo.get(texts[k]) if a <= starts[k] and ends[k] <= e else None)
                      for k in range(bisect_right(starts, a) - 1, bisect_left(starts, e))]
            hits = scanner.joined_hits(joined[a:e], pieces)
        for f in scanner.scan(joined[a:e], across=inner, hits=hits, pieces_plain=plain):
            s, t = f.start + a, f.end + a
            i = bisect_right(bounds, s - 1)  # first separator at or after s
            if i >= len(bounds) or bounds[i] >= t:
                continue  # inside one field: already reported by the per-field scan
            while s < t and joined[s].isspace():
                s += 1  # the separator and the blanks around it are no part of the payload
            key = (f.rule_id, s, t)
            if key in seen:
                continue
            seen.add(key)
            first = bisect_right(starts, s) - 1
            last = bisect_right(starts, t - 1) - 1
            local_start = max(0, s - starts[first])
            if first == last:
                # only blanks before the separator, or the separator is all it takes of the next
                # field: the match lies in one field, which its own scan missed (its pattern wants a
                # line start, a space or a line end around it)
                if any(x < t and s < y for x, y in covered.get(f.rule_id, ())):
                    continue
                local_end = min(t - starts[first], len(texts[first]))  # a match may end on the separator
                out.append(Finding(f.rule_id, f.family, f.severity, min(local_start, local_end), local_end,
                                   f.reason, paths[first], f.score, f.stage, f.detail))
                continue
            local_end = len(texts[first])
            spanned = paths[first:last + 1]
            out.append(Finding(f.rule_id, f.family, f.severity, min(local_start, local_end), local_end,
                               f"{f.reason} (spans {len(spanned)} fields)", paths[first], f.score, f.stage,
                               "spans:" + ",".join(spanned)))
    return out
