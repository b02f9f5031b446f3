"""``toolbound fetch``: one page of a result that was cut to fit its token budget."""

from __future__ import annotations

import argparse
import sys

from toolbound._cli._io import fail_usage, print_result


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "fetch", help="print one page of a result that was cut to fit its token budget",
        description="Print page N of a stored result (the handle comes from a sanitized result's "
        "'handle'). By default the page is sanitized like any tool result; --raw prints the page's "
        "exact slice of the result's JSON text (for operators), with nothing added, so pages 1..N "
        "concatenated reproduce the result byte for byte. The store is chosen as for sanitize: "
        "$TOOLBOUND_STORE_URL, else the SQLite file at $TOOLBOUND_STORE or in the user's cache "
        "directory. Exit 0 when an envelope was printed (not_found included); with --raw, 1 when "
        "the handle or page is unknown; 2 for usage errors.")
    p.add_argument("handle", metavar="HANDLE", help="the handle (tb_...)")
    p.add_argument("--page", type=int, default=1, metavar="N", help="page number, from 1 (default 1)")
    p.add_argument("--raw", action="store_true",
                   help="print the page's raw slice of the JSON text exactly (no newline added)")
    p.add_argument("--tool", help="the tool the handle must belong to")
    p.add_argument("--session", help="the session the handle is bound to")
    p.add_argument("--store", metavar="URL", help="store URL (redis://..., sqlite:///path, memory:)")
    p.add_argument("--format", choices=("json", "model"), default="json",
                   help="json: the full sanitized page (default); model: the text the model sees")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import toolbound
    from toolbound._fetch import fetch_more, read_page

    if args.page < 1:
        return fail_usage(f"--page must be 1 or more, not {args.page}")
    try:
        if args.raw:
            data, _pages, problem = read_page(args.handle, args.page, tool=args.tool,
                                              session=args.session, store=args.store)
            if data is None:
                sys.stderr.write(f"toolbound: {problem}\n")
                return 1
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
            return 0
        result = fetch_more(args.handle, args.page, tool=args.tool, session=args.session,
                            store=args.store)
    except toolbound.OptionError as exc:
        return fail_usage(str(exc))
    print_result(result, args.format)
    return 0
