"""``toolbound proxy``: put toolbound in front of any MCP server that speaks stdio.

The proxy starts the upstream server as a child process (its MCP client side), and serves the
same tools to the host over its own stdin/stdout (its MCP server side). For every ``tools/call``:

1. the arguments are checked against the upstream tool's ``inputSchema`` (layer 1) and the
   policy's ``[tools.NAME.args]`` checks (layer 2) with :func:`toolbound.validate_args`; a failure
   is answered at once (``invalid_arguments``, ``path_escapes_workspace``...) and the upstream
   server never sees the call;
2. the call is forwarded (with a timeout, ``--timeout``);
3. the upstream result is sanitized under the tool's policy (quarantine, detection, actions, token
   budget) and returned as a ``CallToolResult`` (:func:`toolbound.mcp.to_call_tool_result`);
   findings are appended to the JSON-lines log (``--log``).

A cut result's rest is served by an extra tool, ``toolbound_fetch_more`` (``handle``, ``page``),
listed after the upstream tools; handles are bound to this proxy process's session.

What passes through unchanged: tool names, descriptions, input schemas, annotations and
pagination of ``tools/list``; JSON-RPC protocol errors from the upstream server (unknown method,
invalid params...); cancellation (a cancelled call is cancelled upstream); progress
notifications (numbers only: a progress message is upstream text and is dropped).

What changes, and why:

- ``outputSchema`` is removed from listed tools: results become toolbound's text rendering, and a
  quarantined result carries no ``structuredContent`` (it would bypass quarantine), so a declared
  schema would make clients reject results. Upstream ``structuredContent`` is still validated
  against it here, failing closed with ``invalid_output``.
- An upstream timeout gives a ``timeout`` error result; an upstream crash or closed connection
  gives ``tool_failed`` (and so does every later call: restart the proxy to restart the server);
  an upstream handler crash (JSON-RPC error 0 or -32603) gives ``tool_failed`` without the
  upstream's exception text, which can hold paths and secrets (it is logged to stderr instead).
- Only tools are proxied. Resources and prompts would reach the model without passing through
  toolbound, so they are not offered; server-to-client requests (sampling, elicitation, roots)
  and notifications other than progress (logging, ``tools/list_changed``) are not relayed; the
  listing is read afresh on every ``tools/list``.
- A tool named ``toolbound_fetch_more`` on the upstream server is hidden by the proxy's own.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import secrets
import shutil
import sys
import threading
from collections.abc import Mapping
from typing import Any

from toolbound._errors import ToolError
from toolbound._policy import Policy

log = logging.getLogger("toolbound.proxy")

FETCH_TOOL_NAME = "toolbound_fetch_more"
FETCH_TOOL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "handle": {"type": "string", "description": "The handle given in the cut result (tb_...)."},
        "page": {"type": "integer", "minimum": 1, "default": 1,
                 "description": "The page to fetch, from 1 to the number of pages the result names."},
    },
    "required": ["handle"],
    "additionalProperties": False,
}
FETCH_TOOL_DESCRIPTION = (
    "Fetch one page of a tool result that toolbound cut to fit its token budget. Use the handle "
    "and page numbers given in the cut result. Pages are untrusted tool output like the result.")
DEFAULT_TIMEOUT = 60.0
# The server's start (e.g. ``npx -y ...`` downloading a package) may take longer than a call.
MIN_STARTUP_TIMEOUT = 120.0
_MAX_LIST_PAGES = 1000
# JSON-RPC codes an upstream *tool handler* crash produces (the Python SDK uses 0; the spec's
# internal error is -32603); those become tool_failed results, other errors pass through.
_HANDLER_CRASH_CODES = (0, -32603)


class ProxyStartError(Exception):
    """The proxy cannot start (exit code in ``code``; the message says what to do)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


# --- the findings log ----------------------------------------------------------------------------

class FindingsLog:
    """Appends one JSON line per call with findings; never holds payload text."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._warned = False
        if path is not None:
            try:
                with open(path, "a", encoding="utf-8"):
                    pass
            except OSError as exc:
                raise ProxyStartError(f"cannot open the findings log {path}: "
                                      f"{exc.strerror or exc}") from None

    def record(self, result: Any, *, tool: str | None, request_id: Any = None) -> None:
        if self.path is None or not result.findings:
            return
        prov = result.provenance
        findings = []
        for f in result.findings:
            d = f.to_dict()
            d.pop("detail", None)  # may hold decoded hidden text from the payload
            findings.append(d)
        line = {
            "timestamp": prov.timestamp,
            "tool": tool,
            "call_id": prov.call_id,
            "request_id": request_id,
            "ok": result.ok,
            "error_code": None if result.ok else result.envelope.error.code,
            "trusted": result.trusted,
            "needs_approval": result.needs_approval,
            "findings": findings,
            "payload_sha256": prov.payload_sha256,
            "policy_sha256": prov.policy_sha256,
            "origin": dict(prov.origin),
            "spans": [s.model_dump(mode="json") for s in prov.spans],
            "handle": result.handle,
        }
        text = json.dumps(line, ensure_ascii=False, separators=(",", ":"), default=str) + "\n"
        with self._lock:
            try:
                with open(self.path, "a", encoding="utf-8") as fh:
                    fh.write(text)
            except OSError as exc:
                if not self._warned:
                    self._warned = True
                    log.warning("cannot write the findings log %s: %s", self.path, exc)


# --- the proxy -----------------------------------------------------------------------------------

class Proxy:
    """The MCP server side of the proxy, talking to one upstream ``ClientSession``."""

    def __init__(self, upstream: Any, *, policy: Policy, timeout: float | None,
                 findings_log: FindingsLog, upstream_name: str = "upstream",
                 session: str | None = None, store: Any = None) -> None:
        self.upstream = upstream
        self.policy = policy
        self.timeout = timeout
        self.findings_log = findings_log
        self.upstream_name = upstream_name
        self.session = session or "proxy_" + secrets.token_hex(8)
        self.store = store
        self.input_schemas: dict[str, Any] = {}
        self.output_schemas: dict[str, Any] = {}
        self.dead: str | None = None  # why the upstream connection is gone
        from toolbound._argpolicy import policy_base_dir

        self._base_dir = policy_base_dir(policy.source)

    # -- building the server ----------------------------------------------------------------------

    def build_server(self, *, name: str | None = None, version: str = "",
                     instructions: str | None = None) -> Any:
        from mcp.server.lowlevel.server import Server

        return Server(name or self.upstream_name, version=version, instructions=instructions,
                      on_list_tools=self.on_list_tools, on_call_tool=self.on_call_tool)

    # -- tools/list -------------------------------------------------------------------------------

    async def _list_page(self, cursor: str | None) -> Any:
        import anyio
        import mcp_types as types
        from mcp.shared.exceptions import MCPError

        params = types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
        try:
            with anyio.fail_after(self.timeout):
                res = await self.upstream.list_tools(params=params)
        except TimeoutError:
            raise MCPError(code=types.REQUEST_TIMEOUT, message=f"the upstream MCP server did not list "
                           f"its tools within {self.timeout:g} s") from None
        for t in res.tools:
            if t.name != FETCH_TOOL_NAME:
                self.input_schemas[t.name] = t.input_schema
                self.output_schemas[t.name] = t.output_schema
        return res

    async def on_list_tools(self, ctx: Any, params: Any) -> Any:
        import mcp_types as types

        cursor = getattr(params, "cursor", None) if params is not None else None
        res = await self._list_page(cursor)
        tools = []
        for t in res.tools:
            if t.name == FETCH_TOOL_NAME:
                log.warning("the upstream server has a tool named %s; the proxy's own replaces it",
                            FETCH_TOOL_NAME)
                continue
            tools.append(t.model_copy(update={"output_schema": None}) if t.output_schema is not None
                         else t)
        if cursor is None:
            tools.append(types.Tool(name=FETCH_TOOL_NAME, description=FETCH_TOOL_DESCRIPTION,
                                    input_schema=FETCH_TOOL_SCHEMA,
                                    annotations=types.ToolAnnotations(read_only_hint=True,
                                                                      open_world_hint=False)))
        return res.model_copy(update={"tools": tools})

    async def _schema_for(self, name: str) -> Any:
        if name in self.input_schemas:
            return self.input_schemas[name]
        cursor: str | None = None
        for _ in range(_MAX_LIST_PAGES):  # the listing may be stale: read it all once more
            res = await self._list_page(cursor)
            cursor = res.next_cursor
            if name in self.input_schemas or cursor is None:
                break
        return self.input_schemas.get(name)

    # -- tools/call -------------------------------------------------------------------------------

    async def _sanitize(self, raw: Any, tool: str | None, ctx: Any, **options: Any) -> Any:
        import anyio

        from toolbound._pipeline import sanitize

        origin = {"via": "toolbound proxy", "upstream": self.upstream_name}
        if getattr(ctx, "request_id", None) is not None:
            origin["mcp_request_id"] = str(ctx.request_id)
        opts: dict[str, Any] = {"session": self.session, "origin": origin, **options}
        if self.store is not None:
            opts["store"] = self.store
        fn = functools.partial(sanitize, raw, tool=tool, policy=self.policy, **opts)
        return await anyio.to_thread.run_sync(fn)

    def _reply(self, result: Any, tool: str | None, ctx: Any) -> Any:
        from toolbound.mcp import to_call_tool_result

        self.findings_log.record(result, tool=tool, request_id=getattr(ctx, "request_id", None))
        return to_call_tool_result(result)

    async def _error(self, code: str, detail: str, tool: str | None, ctx: Any, *,
                     message: str | None = None, retryable: bool | None = None) -> Any:
        from toolbound._envelope import failure

        msg = message or failure(code, detail).error.message
        result = await self._sanitize(ToolError(code, msg, retryable=retryable), tool, ctx)
        return self._reply(result, tool, ctx)

    async def on_call_tool(self, ctx: Any, params: Any) -> Any:
        from mcp.shared.exceptions import MCPError

        name: str = params.name
        try:
            if name == FETCH_TOOL_NAME:
                return await self._fetch(ctx, params)
            return await self._call(ctx, params)
        except MCPError:
            raise  # protocol errors pass through as they are
        except Exception:  # a bug here must not reach the host as a raw exception text
            log.exception("toolbound proxy: handling a call to %r failed", name)
            return await self._error("internal_error", "toolbound's MCP proxy failed while handling "
                                     "the call", name, ctx)

    async def _fetch(self, ctx: Any, params: Any) -> Any:
        import anyio

        from toolbound._args import validate_args
        from toolbound._envelope import Failure
        from toolbound._fetch import fetch_more

        args = validate_args(params.arguments, FETCH_TOOL_SCHEMA)
        if isinstance(args, Failure):
            return await self._error(args.error.code, "", None, ctx, message=args.error.message,
                                     retryable=args.error.retryable)
        fn = functools.partial(fetch_more, args["handle"], int(args.get("page", 1)),
                               session=self.session, store=self.store)
        result = await anyio.to_thread.run_sync(fn)
        return self._reply(result, result.tool, ctx)

    def _checks(self, name: str) -> list[Any]:
        eff = self.policy.for_tool(name)
        args_policy = getattr(eff, "args", None)
        return args_policy.checks(self._base_dir) if args_policy is not None else []

    async def _call(self, ctx: Any, params: Any) -> Any:
        import mcp_types as types
        from mcp.shared.exceptions import MCPError
        from pydantic import ValidationError

        from toolbound._args import validate_args
        from toolbound._envelope import Failure
        from toolbound._schemacheck import InvalidSchemaError

        name: str = params.name
        if self.dead is not None:
            return await self._error("tool_failed", self.dead, name, ctx)
        try:
            schema = await self._schema_for(name)
        except MCPError as exc:
            if exc.code == types.CONNECTION_CLOSED:
                return await self._closed(name, ctx)
            if exc.code == types.REQUEST_TIMEOUT:
                return await self._error("timeout", f"the server did not list its tools within "
                                         f"{self.timeout:g} seconds (the proxy's --timeout)", name, ctx)
            raise
        if schema is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {name}")

        # 1. arguments: the upstream tool's input schema, then the policy's checks
        try:
            args = validate_args(params.arguments, schema, checks=self._checks(name))
        except InvalidSchemaError:
            log.warning("the upstream tool %r has an invalid inputSchema; its calls are refused", name)
            return await self._error("tool_failed", "the tool's input schema is not a valid JSON "
                                     "Schema, so its arguments cannot be checked and the call was "
                                     "refused; report the problem to the server's maintainers", name, ctx)
        if isinstance(args, Failure):
            return await self._error(args.error.code, "", name, ctx, message=args.error.message,
                                     retryable=args.error.retryable)

        # 2. forward
        request = types.CallToolRequest(params=types.CallToolRequestParams(
            name=name, arguments=args, _meta=_forward_meta(ctx)))  # type: ignore[arg-type]
        progress = _progress_relay(ctx)
        try:
            ctr = await self.upstream.send_request(request, types.CallToolResult,
                                                   request_read_timeout_seconds=self.timeout,
                                                   progress_callback=progress)
        except MCPError as exc:
            if exc.code == types.REQUEST_TIMEOUT:
                return await self._error("timeout", f"the tool did not answer within "
                                         f"{self.timeout:g} seconds (the proxy's --timeout)", name, ctx)
            if exc.code == types.CONNECTION_CLOSED:
                return await self._closed(name, ctx)
            if exc.code in _HANDLER_CRASH_CODES:
                log.warning("upstream tool %r failed with JSON-RPC error %s: %s", name, exc.code,
                            exc.message)
                return await self._error("tool_failed", f"the tool failed while handling the call "
                                         f"(the server answered with error {exc.code}; its text is "
                                         "not shown)", name, ctx)
            raise
        except ValidationError:
            return await self._error("invalid_output", "the server's answer is not a valid MCP tool "
                                     "result", name, ctx)

        # 3. sanitize under the tool's policy
        options: dict[str, Any] = {}
        out_schema = self.output_schemas.get(name)
        if out_schema is not None and not ctr.is_error:
            options["output_schema"] = out_schema
        try:
            result = await self._sanitize(ctr, name, ctx, **options)
        except InvalidSchemaError:
            log.warning("the upstream tool %r has an invalid outputSchema", name)
            return await self._error("invalid_output", "the tool declares an output schema that is "
                                     "not a valid JSON Schema, so its result was withheld", name, ctx)
        return self._reply(result, name, ctx)

    async def _closed(self, name: str, ctx: Any) -> Any:
        from toolbound._envelope import failure

        self.dead = ("the upstream MCP server closed its connection (it exited or crashed); restart "
                     "the MCP server from the host to recover")
        log.error("the upstream MCP server closed the connection")
        return await self._error("tool_failed", "", name, ctx,
                                 message=failure("tool_failed", self.dead).error.message)


def _forward_meta(ctx: Any) -> dict[str, Any] | None:
    """The host's ``_meta`` for the call, minus what the SDK manages (progress token, reserved keys)."""
    raw = ctx.params if isinstance(getattr(ctx, "params", None), Mapping) else {}
    meta = raw.get("_meta") if isinstance(raw, Mapping) else None
    if not isinstance(meta, Mapping):
        return None
    out = {k: v for k, v in meta.items()
           if k != "progressToken" and not str(k).startswith("io.modelcontextprotocol/")}
    return out or None


def _progress_relay(ctx: Any) -> Any:
    raw = ctx.params if isinstance(getattr(ctx, "params", None), Mapping) else {}
    meta = raw.get("_meta") if isinstance(raw, Mapping) else None
    token = meta.get("progressToken") if isinstance(meta, Mapping) else None
    if token is None or isinstance(token, bool) or not isinstance(token, (str, int)):
        return None

    async def relay(progress: float, total: float | None, message: str | None) -> None:
        try:
            await ctx.session.send_progress_notification(token, progress, total, None,
                                                         related_request_id=ctx.request_id)
        except Exception:  # progress is best effort
            log.debug("could not relay a progress notification", exc_info=True)

    return relay


# --- running it ----------------------------------------------------------------------------------

def check_command(command: list[str]) -> str:
    """The executable to run, or raise :class:`ProxyStartError` (exit 2) saying what is wrong."""
    if not command:
        raise ProxyStartError("no upstream command; put the MCP server's command after '--', e.g. "
                              "toolbound proxy --policy policy.toml -- npx -y "
                              "@modelcontextprotocol/server-github")
    exe = command[0]
    if os.sep in exe or (os.altsep and os.altsep in exe):
        if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
            raise ProxyStartError(f"the upstream command {exe!r} is not an executable file")
        return exe
    found = shutil.which(exe)
    if found is None:
        raise ProxyStartError(f"the upstream command {exe!r} was not found on PATH; install it or "
                              "give its full path")
    return found


async def serve(command: list[str], *, policy: Policy, findings_log: FindingsLog,
                timeout: float | None = DEFAULT_TIMEOUT, store: Any = None) -> None:
    """Start the upstream server and serve the proxy over this process's stdin/stdout."""
    import anyio
    import mcp_types as types
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.server.stdio import stdio_server
    from mcp.shared.exceptions import MCPError

    from toolbound._version import __version__

    params = StdioServerParameters(command=command[0], args=list(command[1:]), env=dict(os.environ))
    async with contextlib.AsyncExitStack() as stack:
        try:
            read, write = await stack.enter_async_context(stdio_client(params, errlog=sys.stderr))
        except OSError as exc:
            raise ProxyStartError(f"cannot start the upstream command {command[0]!r}: "
                                  f"{exc.strerror or exc}") from None
        upstream = await stack.enter_async_context(ClientSession(
            read, write, client_info=types.Implementation(name="toolbound-proxy", version=__version__)))
        startup = None if timeout is None else max(timeout, MIN_STARTUP_TIMEOUT)
        try:
            with anyio.fail_after(startup):
                init = await upstream.initialize()
        except TimeoutError:
            raise ProxyStartError(f"the upstream MCP server did not initialize within {startup:g} s",
                                  code=1) from None
        except MCPError as exc:
            raise ProxyStartError(f"the upstream MCP server failed to initialize: {exc.message}",
                                  code=1) from None
        info = init.server_info
        proxy = Proxy(upstream, policy=policy, timeout=timeout, findings_log=findings_log,
                      upstream_name=info.name, store=store)
        server = proxy.build_server(name=info.name, version=info.version or "",
                                    instructions=init.instructions)
        sread, swrite = await stack.enter_async_context(stdio_server())
        await server.run(sread, swrite, server.create_initialization_options())


def _start_error(exc: BaseException) -> ProxyStartError | None:
    if isinstance(exc, ProxyStartError):
        return exc
    for sub in getattr(exc, "exceptions", ()) or ():
        found = _start_error(sub)
        if found is not None:
            return found
    return None


def run_proxy(command: list[str], *, policy: Policy, log_path: str | None = None,
              timeout: float | None = DEFAULT_TIMEOUT) -> int:
    """Run the proxy until the host closes its stdin; returns the exit code.

    Raises:
        ProxyStartError: the command is missing or the log cannot be opened (exit code 2).
    """
    import anyio

    exe = check_command(command)
    findings_log = FindingsLog(log_path)
    try:
        anyio.run(functools.partial(serve, [exe, *command[1:]], policy=policy,
                                    findings_log=findings_log, timeout=timeout))
    except BaseException as exc:
        start = _start_error(exc)
        if start is not None:
            raise start from None
        if isinstance(exc, KeyboardInterrupt):
            return 130
        raise
    return 0
