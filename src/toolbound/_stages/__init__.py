"""The stages of ``sanitize()``, one module each, each exposing ``run(ctx) -> None``.

Order: coerce, validate, normalize, quarantine, detect, act, budget, render. Stages that have
not been built yet are explicit no-ops: their module sets ``NOOP = True`` and a test names them.
"""
