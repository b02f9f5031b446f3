"""Stage 5, detect: every string that reaches the model is scanned by the rule engine.

Not wired yet (owned by the detection work): an explicit no-op.
"""

from __future__ import annotations

from toolbound._context import Context

NOOP = True


def run(ctx: Context) -> None:
    return None
