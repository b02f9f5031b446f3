"""Stage 3, normalize: neutralise invisible characters, bidi controls, tag characters,
chat-template tokens and hostile HTML in external content, recording each change as a finding.

Not built yet (owned by the quarantine/policy work): an explicit no-op.
"""

from __future__ import annotations

from toolbound._context import Context

NOOP = True


def run(ctx: Context) -> None:
    return None
