"""Argument checks for :func:`toolbound.validate_args` and :func:`toolbound.tool` (layer 2).

A check is any callable ``check(args, context) -> None | Failure | str``; these factories build
the common ones::

    from toolbound.checks import allowed_values, authorize, max_items, max_length, within_workspace

    checks = [
        within_workspace("/srv/workspace", "path"),          # path_escapes_workspace
        allowed_values("mode", ["read", "append"]),          # invalid_arguments
        max_length("note", 2000), max_items("tags", 20),     # invalid_arguments
        authorize(lambda args, ctx: args["account"] in ctx.accounts,
                  "this account must belong to the caller"),  # not_authorized
    ]

:func:`resolve_within` gives a handler the exact location :func:`within_workspace` checked.
"""

from toolbound._checks import (Check, allowed_values, authorize, max_items, max_length, resolve_within,
                               within_workspace)

__all__ = ["Check", "allowed_values", "authorize", "max_items", "max_length", "resolve_within",
           "within_workspace"]
