"""Stage 7, budget: the text the model sees never exceeds the token budget, and nothing is lost.

Budget: the ``max_tokens`` option of ``sanitize()``, else the tool's policy ``max_tokens``, else
:data:`DEFAULT_MAX_TOKENS` (8,000 tokens: a typical tool result of a few KB fits without even
being counted, and a cut result still shows a useful slice).

This stage renders the final text itself (``render.render``; the render stage keeps it) and
measures it, metadata lines included:

1. at most ``budget`` UTF-8 bytes: within budget, nothing counted, no tokenizer loaded (a token is
   at least one byte);
2. otherwise the text is counted exactly with the tokenizer (``toolbound._tokens``), unless its
   size alone proves it is over (more than ``budget * longest token`` bytes) or counting a prefix
   of a long text already does (``Encoder.count_capped``: it stops once over);
3. over budget: the full payload (its canonical JSON) is stored under a handle in pages
   (``toolbound._store``), and the model gets a structure-aware view (``toolbound._truncate``)
   plus a one-line summary (``toolbound._summary``) and a line saying how to fetch the rest with
   the ``toolbound_fetch_more`` tool. The view is grown or shrunk until the exact count of the
   final text fits; with a tiny budget only the summary and the handle remain, and as a last
   resort the metadata text itself is cut at a token boundary.

The search for the largest view that fits counts few renderings: the first allowance is the
budget less the fixed lines, the next is predicted from the measured tokens per allowance unit
(secant), and once one view fits and one does not, the next is interpolated between them; it
stops at the first view within 95-100% of the budget. A text rendered twice (views often stop
changing between close allowances) is counted once. The final text is counted exactly once, with
its real nonce, call id and handle, and that count is the one reported.

Quarantined spans whose strings are left out of the view are not rendered; spans whose strings
are cut render the cut text (``ctx.render_spans``). ``ctx.spans`` stays complete: it is the
record of every piece of external content in the result, whether shown or not.

Metadata: ``meta["budget"]`` always (``max_tokens``, ``truncated``; when counted: ``tokens`` and
``encoding``; when cut: ``reason``, ``view``, ``summary``, ``handle``, ``pages``, ``stored``...), and
``meta["encoding"]`` names the encoding whenever tokens were counted (a result decided by its byte
length alone loads no tokenizer and records none).

When no tokenizer can be loaded offline, UTF-8 bytes are used as the count (a sound upper bound
for any BPE tokenizer), and ``meta["budget"]["encoding_error"]`` says what to install or set.

Pages: ``toolbound.fetch_more()`` sanitizes one page while :data:`CURRENT_PAGE` is set; this stage
then adds the page line and, should a page still not fit, cuts its view without storing again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from toolbound._context import Context, Span
from toolbound._envelope import Failure, Success
from toolbound._errors import EncodingUnavailableError
from toolbound._jsonutil import canonical_json, sha256_hex
from toolbound._stages import render
from toolbound._tokens import BYTES, Encoder, fits_by_bytes, get_encoder

DEFAULT_MAX_TOKENS = 8_000
FINDINGS_RESERVE = 160     # tokens kept free on a page for a findings line
MIN_PAGE_TOKENS = 64
SPAN_COST = 30             # estimated tokens a quarantined string adds (placeholder + markers)
MAX_ITERS = 14
FAR_OVER = 8               # payload chars > budget * longest token * this: over, without rendering
# Stand-ins for the random parts of the text (same length, at least as many tokens), so the
# search for the largest view that fits is deterministic; the final text is counted for real.
STANDIN_NONCE = "0a1b2c3d4e5f"
STANDIN_CALL = "call_0a1b2c3d4e5f6a7b"
STANDIN_HANDLE = "tb_" + "0-" * 16
OMITTED = "[toolbound: content not shown; see the summary and fetch the pages]"

log = logging.getLogger("toolbound")


@dataclass(frozen=True)
class PageInfo:
    handle: str
    page: int
    pages: int


CURRENT_PAGE: ContextVar[PageInfo | None] = ContextVar("toolbound_current_page", default=None)


def resolve_budget(ctx: Context) -> tuple[int, str]:
    """``(max_tokens, where it came from)``."""
    if ctx.options.max_tokens is not None:
        return ctx.options.max_tokens, "option max_tokens"
    if ctx.policy.max_tokens is not None:
        return ctx.policy.max_tokens, "policy max_tokens"
    return DEFAULT_MAX_TOKENS, "default"


def page_line(p: PageInfo) -> str:
    nxt = (f'next: call toolbound_fetch_more with {{"handle": "{p.handle}", "page": {p.page + 1}}}'
           if p.page < p.pages else "this is the last page")
    return (f"page {p.page} of {p.pages} of a stored result (a slice of its JSON text; it may start "
            f"or end mid-value); {nxt}")


def more_line(handle: str, pages: int, shown: str) -> str:
    return (f"truncated to fit the token budget ({shown}). The full result is stored as {pages:,} "
            f'page(s): call the toolbound_fetch_more tool with {{"handle": "{handle}", "page": 1}} '
            f"(pages 1 to {pages}) to read it")


def compact_more_line(handle: str, pages: int) -> str:
    return f"truncated; toolbound_fetch_more handle={handle} pages=1-{pages}"


def run(ctx: Context) -> None:
    budget, source = resolve_budget(ctx)
    page = CURRENT_PAGE.get()
    canonical = ctx.meta.get("canonical")
    if (canonical is not None and page is None and len(canonical) > budget * FAR_OVER * 128
            and ctx.policy.quarantine != "reference"):
        # Far over budget: the rendering shows (at least) the payload's strings, keys and values,
        # so rendering it in full only to measure it would be wasted work on a huge result.
        enc, enc_error = _encoder(ctx)
        if len(canonical) > budget * FAR_OVER * enc.max_token_bytes:
            _over_budget(ctx, enc, enc_error, budget, source, page, None, None)
            return
    extra = [page_line(page)] if page is not None else None
    text = render.render(ctx, extra_lines=extra)
    if fits_by_bytes(text, budget):
        ctx.rendered = text
        ctx.meta["budget"] = {"max_tokens": budget, "truncated": False}
        return
    enc, enc_error = _encoder(ctx)
    nbytes = len(text.encode("utf-8"))
    tokens = None
    at_least = None
    if nbytes <= budget * enc.max_token_bytes:
        n, exact = enc.count_capped(text, budget)
        if exact:
            tokens = n
        else:
            at_least = n
        if tokens is not None and tokens <= budget:
            ctx.rendered = text
            ctx.meta["encoding"] = enc.name
            ctx.meta["budget"] = {"max_tokens": budget, "tokens": tokens, "truncated": False,
                                  "encoding": enc.name}
            if enc_error:
                ctx.meta["budget"]["encoding_error"] = enc_error
            return
    _over_budget(ctx, enc, enc_error, budget, source, page, tokens, nbytes, at_least)


def _encoder(ctx: Context) -> tuple[Encoder, str | None]:
    try:
        return get_encoder(ctx.options.encoding), None
    except EncodingUnavailableError as exc:
        log.warning("toolbound: counting UTF-8 bytes instead of tokens: %s", exc)
        return BYTES, str(exc)


# --- over budget ----------------------------------------------------------------------------------


def _over_budget(ctx: Context, enc: Encoder, enc_error: str | None, budget: int, source: str,
                 page: PageInfo | None, tokens: int | None, nbytes: int | None,
                 at_least: int | None = None) -> None:
    from toolbound._summary import Summary, summarize
    from toolbound._truncate import Truncator

    env = ctx.envelope
    span_text = {s.path: s.text for s in ctx.spans}
    if isinstance(env, Success):
        payload = ctx.meta.get("canonical")
        if payload is None:
            payload = canonical_json(env.data)
        summ = summarize(env.data, external="" in span_text)
        root, value = "", env.data
    else:
        assert isinstance(env, Failure)
        payload = canonical_json(env.model_dump(mode="json"))
        msg = env.error.message
        summ = Summary(f"the tool's error message has {len(msg):,} characters in "
                       f"{msg.count(chr(10)) + 1:,} lines", {"kind": "error_message", "chars": len(msg)})
        root, value = "/error/message", (span_text.get("/error/message") if ctx.error_from_tool else None)

    handle, pages, store_info = None, 0, {}
    if page is None:
        handle, pages, store_info = _store_payload(ctx, payload, enc, budget)

    def lines(h: str | None, shown: str) -> list[str]:
        out = [page_line(page)] if page is not None else []
        out.append("summary: " + summ.line)
        if page is not None:
            out.append(f"this page was cut to fit the token budget ({shown})")
        elif handle is not None:
            out.append(more_line(h or handle, pages, shown))
        else:
            out.append(f"truncated to fit the token budget ({shown}); the full result could not be "
                       f"stored ({store_info.get('why', 'no store')}), so narrow the request to see more")
        return out

    # A string quoted in its own block costs its placeholder and markers; in the whole-result block
    # it costs only its JSON quotes.
    tr = Truncator(enc, span_text, span_cost=(
        SPAN_COST * len(ctx.spans) / max(1, len(ctx.strings)) if ctx.spans and not ctx.whole else 0.0))

    by_path = {s.path: s for s in ctx.spans}

    def build(alloc: int, h: str | None) -> tuple[Any, str]:
        view = tr.run(value, alloc, root)
        # view.shown is filled in document order, which is span order.
        ctx.render_spans = [_view_span(by_path[p], t) for p, t in view.shown.items() if p in by_path]
        data = view.data if isinstance(env, Success) else None
        if isinstance(env, Success) and data is None:
            data = OMITTED
        return view, render.render(ctx, data=data, extra_lines=lines(h, view.describe()))

    count = _Counts(enc)
    final, final_tokens, view_desc = None, 0, "summary and handle only"
    if value is not None:
        best = _search(ctx, count, budget, build)
        if best is not None:
            alloc = best
            for _ in range(6):  # the real nonce, call id and handle: count again
                view, text = build(alloc, handle)
                t = count(text)
                if t <= budget:
                    final, final_tokens, view_desc = text, t, view.describe()
                    break
                alloc = int(alloc * 0.85)
                if alloc < 1:
                    break
    if final is None:
        final = _minimal(ctx, count, budget, lines, env, handle, pages)
        final_tokens = count(final)
    ctx.rendered = final
    ctx.handle = handle
    ctx.pages = pages
    ctx.meta["encoding"] = enc.name
    if tokens is not None:
        why = f"the result renders to {tokens:,} tokens ({enc.name})"
    elif at_least is not None:
        why = (f"the result renders to {nbytes:,} bytes, and more than {at_least:,} tokens "
               f"({enc.name}) in its first part alone")
    elif nbytes is not None:
        why = (f"the result renders to {nbytes:,} bytes, so at least "
               f"{-(-nbytes // enc.max_token_bytes):,} tokens ({enc.name})")
    else:
        why = (f"the result is {len(payload):,} characters of JSON, far more than "
               f"{budget:,} tokens can show")
    meta: dict[str, Any] = {
        "max_tokens": budget, "source": source, "tokens": final_tokens, "truncated": True,
        "reason": f"{why}, over the budget of {budget:,} tokens ({source})",
        "encoding": enc.name, "original_tokens": tokens, "original_bytes": nbytes,
        "original_tokens_at_least": at_least if tokens is None else tokens,
        "payload_chars": len(payload),
        "view": view_desc, "summary": summ.detail, "handle": handle, "pages": pages,
    }
    meta.update(store_info)
    if enc_error:
        meta["encoding_error"] = enc_error
    ctx.meta["budget"] = meta


def _view_span(s: Span, text: str) -> Span:
    if text == s.text:
        return s
    keep = len(os.path.commonprefix([s.text, text]))
    # A copy (every other field kept): findings beyond the kept prefix no longer point into text.
    return dataclasses.replace(s, text=text, findings=[f for f in s.findings if f.end <= keep])


@contextlib.contextmanager
def _standins(ctx: Context) -> Iterator[None]:
    nonce, call = ctx.nonce, ctx.provenance.call_id
    ctx.nonce = STANDIN_NONCE if len(nonce) == len(STANDIN_NONCE) else nonce
    if ctx.options.call_id is None and len(call) == len(STANDIN_CALL):
        ctx.provenance.call_id = STANDIN_CALL
    try:
        yield
    finally:
        ctx.nonce = nonce
        ctx.provenance.call_id = call


class _Counts:
    """Exact token counts of one call's renderings, each distinct text counted once."""

    def __init__(self, enc: Encoder) -> None:
        self.enc = enc
        self.memo: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        n = self.memo.get(text)
        if n is None:
            n = self.memo[text] = self.enc.count(text)
        return n


def _search(ctx: Context, count: _Counts, budget: int, build: Any) -> int | None:
    """The largest allowance (estimated tokens) whose rendering fits, found with stand-ins for
    the random parts (so the same input gives the same view). See the module docstring."""
    with _standins(ctx):
        _, empty = build(0, STANDIN_HANDLE)
        overhead = min(count(empty), budget)
        target = budget * 0.97 - overhead
        alloc = max(8, budget - overhead)
        lo: int | None = None
        hi: int | None = None
        t_lo = t_hi = 0
        for _ in range(MAX_ITERS):
            _, text = build(alloc, STANDIN_HANDLE)
            t = count(text)
            if t <= budget:
                if lo is None or alloc > lo:
                    lo, t_lo = alloc, t
                if t >= budget * 0.95:
                    break
            elif hi is None or alloc < hi:
                hi, t_hi = alloc, t
            if lo is None:  # all over so far: shrink by the measured ratio
                assert hi is not None
                nxt = int(alloc * min(0.9, max(0.25, target / max(1, t - overhead))))
                if nxt < 1:
                    break
            elif hi is None:  # all within so far: grow by the measured ratio (at least a little)
                nxt = int(alloc * min(4.0, max(1.02, target / max(1, t - overhead))))
            else:  # bracketed: interpolate towards the target, strictly inside (lo, hi)
                if hi - lo <= max(2, lo // 50):
                    break
                frac = (budget * 0.97 - t_lo) / max(1, t_hi - t_lo)
                nxt = min(hi - 1, max(lo + 1, lo + int((hi - lo) * frac)))
            if nxt == alloc:
                break
            alloc = nxt
        return lo


def _minimal(ctx: Context, count: _Counts, budget: int, lines: Any, env: Any,
             handle: str | None, pages: int) -> str:
    """Summary and handle only; then the handle only; then the header and a compact handle line;
    as a last resort that text cut at a token boundary. No quoted content is shown."""
    if isinstance(env, Failure):
        ctx.render_spans = [dataclasses.replace(s, text="[toolbound: the error message is not shown]",
                                                findings=[]) for s in ctx.spans[:1]]
        data = None
    else:
        ctx.render_spans = []
        data = OMITTED
    full = lines(None, "summary and handle only")
    page_part = full[:-2]
    compact = (compact_more_line(handle, pages) if handle is not None else
               "truncated to fit the token budget; the full result could not be stored")
    for extra in (full, page_part + full[-1:], page_part + [compact]):
        text = render.render(ctx, data=data, extra_lines=extra)
        if count(text) <= budget:
            return text
    text = "\n".join([render.header(ctx), *page_part, compact])
    if count(text) <= budget:
        return text
    # Last resort: the handle line stays whole; the header (and page line) are cut to make room.
    tail = "\n" + compact
    room = budget - count(tail) - 1
    head = "\n".join([render.header(ctx), *page_part])
    while room > 0:
        cut = count.enc.head(head, room) + tail
        if count(cut) <= budget:
            return cut
        room -= 2
    return count.enc.head(compact, budget)


# --- storing --------------------------------------------------------------------------------------


def _policy_fields(ctx: Context) -> dict[str, Any]:
    return ctx.policy.model_dump(mode="json", exclude={"tool", "has_entry", "external", "internal"})


def all_external(ctx: Context) -> Any:
    """The effective policy of a page: the tool's, with every string external."""
    from toolbound._policy import EffectivePolicy

    data = ctx.policy.model_dump()
    data.update(external=None, internal=[], has_entry=False)
    return EffectivePolicy(**data)


def _page_tokens(ctx: Context, enc: Encoder, budget: int, payload: str) -> int:
    """Tokens of payload per page so that a sanitized page renders within ``budget``."""
    pol = all_external(ctx)
    prov = ctx.provenance.model_copy(update={"call_id": STANDIN_CALL})
    marker = PageInfo(STANDIN_HANDLE, 99_999, 99_999)

    def frame(text: str) -> int:
        c = dataclasses.replace(
            ctx, envelope=Success.model_construct(ok=True, data=text), policy=pol, provenance=prov,
            spans=[Span(id="Q1", path="", text=text)], strings=[("", text)], findings=[],
            external_values=0, whole=False, render_spans=None, rendered=None, meta={}, notes=[],
            nonce=STANDIN_NONCE)
        return enc.count(render.render(c, extra_lines=[page_line(marker)]))

    sample = payload[:4000]
    empty = frame("")
    ratio = max(1.0, (frame(sample) - empty) / max(1, enc.count(sample))) if sample else 1.0
    avail = budget - empty - FINDINGS_RESERVE
    return max(MIN_PAGE_TOKENS, int(avail / ratio * 0.97))


def _store_payload(ctx: Context, payload: str, enc: Encoder, budget: int
                   ) -> tuple[str | None, int, dict[str, Any]]:
    from toolbound._store import (DEFAULT_MAX_PAYLOAD, DEFAULT_TTL, byte_bounds, new_handle, paginate,
                                  resolve_store)

    try:
        st = resolve_store(ctx.options.store)
    except Exception as exc:
        log.warning("toolbound: no store for the full result: %s", exc)
        return None, 0, {"stored": False, "why": f"the store is unavailable: {exc}"}
    body = payload.encode("utf-8")
    cap = int(getattr(st, "max_bytes", DEFAULT_MAX_PAYLOAD))
    name = getattr(st, "name", type(st).__name__)
    if len(body) > cap:
        return None, 0, {"stored": False, "store": name,
                         "why": f"the result is {len(body):,} bytes, over the store's cap of {cap:,} bytes"}
    page_tokens = _page_tokens(ctx, enc, budget, payload)
    ends = paginate(payload, enc, page_tokens)
    handle = new_handle()
    now = time.time()
    ttl = float(getattr(st, "ttl", DEFAULT_TTL))
    record = {
        "v": 1, "tool": ctx.tool, "session": ctx.options.session, "call_id": ctx.provenance.call_id,
        "kind": "data" if isinstance(ctx.envelope, Success) else "envelope",
        "bounds": byte_bounds(payload, ends), "bytes": len(body), "chars": len(payload),
        "budget": budget, "page_tokens": page_tokens, "encoding": enc.name,
        "encoding_option": ctx.options.encoding, "sha256": sha256_hex(payload),
        "created": now, "expires": now + ttl, "policy": _policy_fields(ctx),
    }
    try:
        st.put(handle, record, body)
    except Exception as exc:
        log.warning("toolbound: could not store the full result: %s", exc)
        return None, 0, {"stored": False, "store": name,
                         "why": f"the store failed ({type(exc).__name__})"}
    return handle, len(ends), {"stored": True, "store": name, "expires_in_seconds": ttl,
                               "page_tokens": page_tokens}
