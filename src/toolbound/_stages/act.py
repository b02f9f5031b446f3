"""Stage 6, act: apply the policy's action for the highest severity found (annotate, redact,
block, require_approval).

Not built yet (owned by the quarantine/policy work): an explicit no-op; findings are annotated.
"""

from __future__ import annotations

from toolbound._context import Context

NOOP = True


def run(ctx: Context) -> None:
    return None
