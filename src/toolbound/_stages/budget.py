"""Stage 7, budget: exact token counting, structure-aware truncation, summaries and a handle to
fetch the rest.

Not built yet (owned by the output-economy work): an explicit no-op.
"""

from __future__ import annotations

from toolbound._context import Context

NOOP = True


def run(ctx: Context) -> None:
    return None
