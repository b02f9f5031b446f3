"""MCP integration: sanitized results as MCP ``CallToolResult`` objects, and back.

Needs the official MCP SDK, version 2 (``pip install 'toolbound[mcp]'``); it is imported only
when a function here runs, so ``import toolbound.mcp`` works without it.

::

    from toolbound.mcp import envelope_output_schema, from_call_tool_result, to_call_tool_result

    result = toolbound.sanitize(ticket, tool="get_ticket", policy="policy.toml")
    return to_call_tool_result(result)        # in a server's on_call_tool handler

    ctr = await session.call_tool("get_ticket", {"id": 91})
    result = from_call_tool_result(ctr, tool="get_ticket", policy="policy.toml")   # in a client

What :func:`to_call_tool_result` puts where:

- ``content``: one text block, ``result.to_model()`` - the same rendering the provider helpers
  (:mod:`toolbound.providers`) send, with quarantined spans, findings and budget applied;
- ``isError``: ``True`` for an error envelope;
- ``structuredContent``: see below;
- ``_meta["toolbound"]``: ``ok``, ``trusted``, ``needs_approval``, ``provenance``, ``findings``
  (rule, family, severity, path, offsets, reason; never payload text, so a finding's ``detail``
  is left out), ``handle`` and ``pages``. It is for the host program, not for the model.

**structuredContent and quarantine.** Hosts may hand ``structuredContent`` to the model instead
of, or next to, the text content. It is plain JSON: it carries no boundary markers, no findings,
no redaction and no token budget, so sending it for an untrusted result would let the raw
outside text reach the model around the quarantine. The ``structured`` option decides:

- ``"trusted"`` (default): only when the result is trusted (no string in it could be written by
  an outside party, see :attr:`toolbound.SanitizedResult.trusted`) and nothing was cut by the
  budget (no ``handle``);
- ``"always"``: whenever the data fits (below); the raw data bypasses quarantine, redaction and the
  budget - use it only when the host never shows ``structuredContent`` to a model;
- ``"never"``: never.

``structured_as`` picks the shape: ``"data"`` (default) is the envelope's ``data``, sent only when
it is a JSON object (MCP requires an object there up to protocol 2025-11-25); ``"envelope"`` is
the whole envelope (``{"ok": true, "data": ...}`` or ``{"ok": false, "error": {...}}``), always an
object, matching :func:`envelope_output_schema`.

**Declaring an outputSchema.** MCP says a tool with an ``outputSchema`` must return conforming
``structuredContent`` in every successful result, and clients (the Python SDK among them) reject a
result without it. A tool whose results are quarantined gets no ``structuredContent`` by default,
so declare an ``outputSchema`` only for tools whose results are always trusted (a policy table
with ``external = []``) and small enough for their budget, using ``structured_as="envelope"`` with
:func:`envelope_output_schema` (or ``"data"`` with the data's own schema).

:func:`from_call_tool_result` goes the other way through :func:`toolbound.sanitize`. Everything in
the incoming result is treated as tool output: a ``_meta["toolbound"]`` block sent by the other
side is ignored (it could claim anything), and an envelope-shaped ``structuredContent`` is read as
an envelope whose strings are as untrusted as any other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # pragma: no cover
    from mcp_types import CallToolResult

    from toolbound._result import SanitizedResult

__all__ = ["META_KEY", "envelope_output_schema", "from_call_tool_result", "to_call_tool_result"]

META_KEY = "toolbound"
"""The key of toolbound's block in a ``CallToolResult``'s ``_meta``."""

StructuredMode = Literal["trusted", "always", "never"]
StructuredShape = Literal["data", "envelope"]
_MODES = ("trusted", "always", "never")
_SHAPES = ("data", "envelope")
_INSTALL = "pip install 'toolbound[mcp]'"


def _types() -> Any:
    """The SDK's wire types module, or a clear ImportError saying what to install."""
    try:
        import mcp_types
    except ImportError:
        try:
            import mcp.types as mcp_types  # type: ignore[no-redef]
        except ImportError:
            raise ImportError(f"toolbound.mcp needs the MCP SDK (mcp>=2.3,<3): {_INSTALL}") from None
    if not hasattr(mcp_types, "CallToolResult"):  # pragma: no cover - a foreign 'mcp_types'
        raise ImportError(f"toolbound.mcp needs the MCP SDK (mcp>=2.3,<3): {_INSTALL}")
    return mcp_types


def envelope_output_schema() -> dict[str, Any]:
    """The envelope's JSON Schema (Draft 2020-12), for a tool's ``outputSchema``.

    It describes ``structuredContent`` as :func:`to_call_tool_result` sends it with
    ``structured_as="envelope"``; see the module notes on when declaring it is safe. A fresh copy
    on every call. Does not need the SDK.
    """
    from toolbound._envelope import envelope_json_schema

    return envelope_json_schema()


def toolbound_meta(result: SanitizedResult) -> dict[str, Any]:
    """The JSON-ready ``_meta["toolbound"]`` block for ``result`` (never payload text)."""
    findings = []
    for f in result.findings:
        d = f.to_dict()
        d.pop("detail", None)  # may hold decoded hidden text from the payload
        findings.append(d)
    return {
        "ok": result.ok,
        "trusted": result.trusted,
        "needs_approval": result.needs_approval,
        "provenance": result.provenance.model_dump(mode="json"),
        "findings": findings,
        "handle": result.handle,
        "pages": result.pages,
    }


def _structured(result: SanitizedResult, mode: str, shape: str) -> Any:
    if mode == "never":
        return None
    if mode == "trusted" and (not result.trusted or result.handle is not None):
        return None
    env = result.envelope
    if shape == "envelope":
        return env.model_dump(mode="json")
    if not env.ok:
        return None
    data = env.model_dump(mode="json")["data"]
    return data if isinstance(data, dict) else None


def to_call_tool_result(result: SanitizedResult, *, structured: StructuredMode = "trusted",
                        structured_as: StructuredShape = "data") -> CallToolResult:
    """An MCP ``CallToolResult`` carrying a sanitized result.

    Args:
        result: What :func:`toolbound.sanitize` (or ``fetch_more``) returned.
        structured: When to send ``structuredContent``: ``"trusted"`` (default: only for trusted,
            uncut results), ``"always"`` or ``"never"``. See the module notes: the model may see
            ``structuredContent``, and it bypasses quarantine.
        structured_as: ``"data"`` (the envelope's data, when it is an object) or ``"envelope"``.

    Returns:
        A ``mcp_types.CallToolResult``: one text block with ``result.to_model()``, ``isError`` for
        an error envelope, toolbound's metadata under ``_meta["toolbound"]``.

    Raises:
        ImportError: the MCP SDK is not installed.
        ValueError: an unknown ``structured`` or ``structured_as`` value.
    """
    if structured not in _MODES:
        raise ValueError(f"structured must be one of {', '.join(map(repr, _MODES))}, not {structured!r}")
    if structured_as not in _SHAPES:
        raise ValueError(f"structured_as must be one of {', '.join(map(repr, _SHAPES))}, "
                         f"not {structured_as!r}")
    t = _types()
    kwargs: dict[str, Any] = {
        "content": [t.TextContent(type="text", text=result.to_model())],
        "is_error": not result.ok,
        "_meta": {META_KEY: toolbound_meta(result)},
    }
    sc = _structured(result, structured, structured_as)
    if sc is not None:
        kwargs["structured_content"] = sc
    return t.CallToolResult(**kwargs)


def _is_envelope(value: Any) -> bool:
    return (isinstance(value, Mapping) and isinstance(value.get("ok"), bool)
            and set(value) <= {"ok", "data", "error"}
            and (("error" in value) != bool(value["ok"])))


def from_call_tool_result(ctr: Any, *, tool: str | None = None, **sanitize_options: Any
                          ) -> SanitizedResult:
    """Sanitize an MCP ``CallToolResult`` (an SDK object or its JSON dict) received from a server.

    ``isError`` gives ``tool_failed`` with the tool's text as an untrusted message; otherwise the
    data is ``structuredContent`` when present (an envelope-shaped one is read as the envelope),
    else the single text block's text, else the list of content blocks. ``_meta`` is ignored.

    Args:
        ctr: A ``CallToolResult`` (object or dict with ``content``, ``structuredContent``,
            ``isError``).
        tool: The tool's name (selects its policy table; recorded in provenance).
        **sanitize_options: Passed to :func:`toolbound.sanitize` (``policy``, ``max_tokens``,
            ``session``, ``call_id``...).

    Returns:
        A :class:`toolbound.SanitizedResult`; a malformed result gives an error envelope.
    """
    from toolbound._pipeline import sanitize

    raw: Any = ctr
    if not isinstance(ctr, Mapping) and hasattr(ctr, "model_dump"):
        try:
            raw = ctr.model_dump(mode="json", by_alias=True, exclude_none=True)
        except (TypeError, ValueError):  # not serializable: let coerce report what it can
            raw = ctr
    if isinstance(raw, Mapping):
        raw = {k: v for k, v in raw.items() if k not in ("_meta", "meta")}
        sc = raw.get("structuredContent")
        if raw.get("isError") is not True and _is_envelope(sc):
            raw = dict(sc)
    return sanitize(raw, tool=tool, **sanitize_options)
