"""Which of many spans can meet a range: the overlap questions that were quadratic, answered by bisection.

A text of many repeated attack words ("іgnоrе іgnоrе ...", "i\\u200bgnore ...") yields as many
keyword hits, lookalike words, findings and passages, and asking each of one kind against every one
of another made the scan quadratic (100 KB of lookalike words took seconds, 1 MB minutes).
:class:`SpanIndex` keeps the spans sorted by start, in a short and a long group with each group's
longest length, so a span ending at or after ``a`` can only start within that length before ``a``:
:meth:`SpanIndex.candidates` returns the indices of every span starting in ``[a - longest, b]``,
a superset of those meeting ``[a, b]``, and the caller applies its own exact test to them.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence

SHORT = 64  # spans up to this length share one group; the few longer ones (decoded blocks) the other


class SpanIndex:
    """Spans ``(start, end)`` (any order, any lengths) indexed for "which may meet ``[a, b]``"."""

    __slots__ = ("_groups",)

    def __init__(self, spans: Sequence[tuple[int, int]]) -> None:
        groups: list[tuple[list[int], list[int], int]] = []
        for long_group in (False, True):
            order = sorted((s, i) for i, (s, e) in enumerate(spans) if (e - s > SHORT) is long_group)
            if order:
                longest = max(spans[i][1] - spans[i][0] for _, i in order)
                groups.append(([s for s, _ in order], [i for _, i in order], longest))
        self._groups = groups

    def candidates(self, a: int, b: int) -> Iterator[int]:
        """Indices (into the spans given) of every span that starts in ``[a - L, b]``, where L is
        the longest span of its group: every span with ``start <= b`` and ``end >= a`` is among them."""
        for starts, idx, longest in self._groups:
            lo = bisect_left(starts, a - longest)
            hi = bisect_right(starts, b)
            for k in range(lo, hi):
                yield idx[k]
