"""``toolbound.fetch_more()``: read one page of a result the budget stage cut.

A page is a slice of the stored payload's canonical JSON text. It is returned as a
``SanitizedResult`` produced by ``sanitize()`` itself (so pages go through coercion, detection,
quarantine and the budget like everything else): its data is the page's text as a string, every
string is external (a page can hold anything the tool returned), the tool's policy settings
(quarantine mode, thresholds, actions) are those recorded with the payload, and ``meta`` carries
``page``, ``pages`` and ``handle``. Provenance records the tool and, in ``origin``, the handle,
the page, the original call id and the payload's SHA-256.

An unknown, expired or foreign handle (bound to another tool or session) gives a ``not_found``
envelope that says what to do, never an exception; the three cases are indistinguishable on
purpose. A page outside 1..N gives ``invalid_arguments``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolbound._errors import ToolError

if TYPE_CHECKING:  # the raw path (``toolbound fetch --raw``) never imports pydantic
    from toolbound._result import SanitizedResult

NOT_FOUND = ("no stored result matches this handle: it is unknown, it has expired (stored results "
             "are kept for a limited time, 24 hours by default), or it belongs to another tool or "
             "session. Next: call the original tool again to get a fresh result and a new handle.")


def _lookup(handle: str, tool: str | None, session: str | None, store: Any
            ) -> tuple[Any, dict[str, Any] | None]:
    from toolbound._store import resolve_store, valid_handle

    st = resolve_store(store)
    if not valid_handle(handle):
        return st, None
    meta = st.get_meta(handle)
    if meta is None:
        return st, None
    if tool is not None and meta.get("tool") != tool:
        return st, None
    if meta.get("session") != session:
        return st, None
    return st, meta


def read_page(handle: str, page: int, *, tool: str | None = None, session: str | None = None,
              store: Any = None) -> tuple[bytes | None, int, str | None]:
    """The raw bytes of one page, for operators: ``(bytes or None, pages, problem)``.

    Pages 1..N concatenated are the stored payload (UTF-8), byte for byte.
    """
    from toolbound._store import page_range

    st, meta = _lookup(handle, tool, session, store)
    if meta is None:
        return None, 0, NOT_FOUND
    pages = len(meta["bounds"])
    if not isinstance(page, int) or not 1 <= page <= pages:
        return None, pages, f"page {page} is out of range; this handle has pages 1 to {pages}"
    start, end = page_range(meta, page)
    data = st.read(handle, start, end)
    if data is None:
        return None, 0, NOT_FOUND
    return data, pages, None


def fetch_more(handle: str, page: int = 1, *, tool: str | None = None, session: str | None = None,
               store: Any = None, policy: Any = None) -> "SanitizedResult":
    """One page of a result that was cut to fit its token budget, sanitized.

    Args:
        handle: ``SanitizedResult.handle`` of the cut result (``tb_...``).
        page: 1-based page number (``SanitizedResult.pages`` pages in all).
        tool: The tool the handle must belong to (None: any tool; provenance records the stored one).
        session: The session the handle must belong to (must equal the one given to ``sanitize``).
        store: A store instance or URL (default: as ``sanitize()`` chooses it).
        policy: A policy (object or TOML path) overriding the settings recorded with the payload.

    Returns:
        A ``SanitizedResult`` whose data is the page's text; ``meta`` has ``page``, ``pages`` and
        ``handle``. Unknown, expired or foreign handles give a ``not_found`` envelope.
    """
    from toolbound._pipeline import sanitize
    from toolbound._policy import Policy, ToolPolicy
    from toolbound._stages.budget import CURRENT_PAGE, PageInfo
    from toolbound._store import page_range

    try:
        st, meta = _lookup(handle, tool, session, store)
    except Exception as exc:  # the store itself is unreachable: an envelope, not an exception
        r = sanitize(ToolError("tool_failed", f"the result store is unavailable ({type(exc).__name__}). "
                               "Next: retry later, or call the original tool again.", retryable=True),
                     tool=tool)
        return _with_meta(r, handle, page, 0)
    if meta is None:
        return _with_meta(sanitize(ToolError("not_found", NOT_FOUND), tool=tool), handle, page, 0)
    pages = len(meta["bounds"])
    if isinstance(page, bool) or not isinstance(page, int) or not 1 <= page <= pages:
        r = sanitize(ToolError("invalid_arguments", f"page {page!r} is out of range; this handle has "
                               f"pages 1 to {pages}. Next: call again with a page in that range."),
                     tool=tool)
        return _with_meta(r, handle, page, pages)
    start, end = page_range(meta, page)
    raw = st.read(handle, start, end)
    if raw is None:
        return _with_meta(sanitize(ToolError("not_found", NOT_FOUND), tool=tool), handle, page, 0)
    text = raw.decode("utf-8")
    stored_tool = meta.get("tool")
    if policy is None:
        fields = dict(meta.get("policy") or {})
        table = {k: v for k, v in fields.items()
                 if k in ToolPolicy.model_fields and k not in ("external", "internal") and v is not None}
        pol: Any = Policy(defaults=ToolPolicy(**table))
    else:
        pol = _everything_external(policy, stored_tool)
    origin = {"handle": handle, "page": f"{page}/{pages}", "call_id": str(meta.get("call_id") or ""),
              "payload_sha256": str(meta.get("sha256") or "")}
    options: dict[str, Any] = {"max_tokens": max(64, int(meta.get("budget") or 64)), "origin": origin,
                               "store": st}
    if session is not None:
        options["session"] = session
    if meta.get("encoding_option"):
        options["encoding"] = meta["encoding_option"]
    token = CURRENT_PAGE.set(PageInfo(handle, page, pages))
    try:
        r = sanitize(text, tool=stored_tool, policy=pol, **options)
    finally:
        CURRENT_PAGE.reset(token)
    return _with_meta(r, handle, page, pages)


def _everything_external(policy: Any, tool: str | None) -> Any:
    from toolbound._pipeline import _resolve_policy
    from toolbound._policy import Policy, ToolPolicy

    eff = _resolve_policy(policy).for_tool(tool)
    fields = eff.model_dump(exclude={"tool", "has_entry", "external", "internal"})
    table = {k: v for k, v in fields.items() if k in ToolPolicy.model_fields and v is not None}
    return Policy(defaults=ToolPolicy(**table))


def _with_meta(r: "SanitizedResult", handle: str, page: Any, pages: int) -> "SanitizedResult":
    ctx = r._ctx
    ctx.meta["handle"] = handle
    ctx.meta["page"] = page
    ctx.meta["pages"] = pages
    return r
