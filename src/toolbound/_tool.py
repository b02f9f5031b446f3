"""``@toolbound.tool``: one decorator guarding both boundaries of a tool call.

::

    @toolbound.tool(input_schema=READ_SCHEMA, checks=[within_workspace(ROOT, "path")])
    def read_file(path: str) -> dict:
        \"\"\"Read a text file from the workspace.\"\"\"
        ...

    result = read_file({"path": "../../etc/passwd"})   # a SanitizedResult, never an exception
    result.envelope.error.code                          # 'path_escapes_workspace'

The wrapped tool takes the raw arguments the model sent (a dict, a JSON text, bytes, None) as
its one positional argument, or the arguments as keywords (``read_file(path="a.txt")``), plus
an optional keyword ``context`` handed to the checks (e.g. the calling user). It

1. validates the arguments in two layers (:func:`toolbound.validate_args`);
2. calls the handler with the validated arguments as keyword arguments (a handler with a
   ``context`` parameter that is not an input property also receives the context);
3. turns exceptions into error envelopes: ``TimeoutError`` / ``asyncio.TimeoutError`` and the
   ``timeout=`` limit give a retryable ``timeout``; a rate-limit exception (a class named like
   ``*RateLimit*`` / ``TooManyRequests``, or carrying HTTP status 429) a retryable
   ``rate_limited``; :class:`toolbound.ToolError` keeps its code; anything else is mapped by
   :func:`toolbound.sanitize` (``tool_failed``, naming the exception type only);
4. runs :func:`toolbound.sanitize` on the result (``tool=name``, ``policy``, ``output_schema``,
   ``max_tokens``) and returns the :class:`toolbound.SanitizedResult`. Argument failures come back
   the same way, as a toolbound-written (trusted) error envelope.

An ``async def`` handler gives an ``async`` wrapper. Sync and async tools share one decision path
(:meth:`_ToolSpec.flow`); the two drivers differ only in how they call and await.

The schemas, checks, options and policy are all checked once, at decoration time: misuse
(``InvalidSchemaError``, ``OptionError``, ``PolicyError``, ``TypeError``) raises then, never per call.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import json
import logging
import re
import threading
from collections.abc import Callable, Generator
from typing import Any

from toolbound._args import (compile_input_schema, decide, normalize_checks,
                             _NoAwait)
from toolbound._envelope import Failure, Success, envelope_json_schema, failure
from toolbound._errors import ToolError
from toolbound._options import parse_options
from toolbound._result import SanitizedResult
from toolbound._schemacheck import compile_schema

log = logging.getLogger("toolbound")

_NAME_RE = re.compile(r"[A-Za-z0-9_.\-]{1,128}")
_MISSING: Any = object()


class _Call:
    """Yielded by the decision flow: "call the handler with these keyword arguments"."""

    __slots__ = ("kwargs",)

    def __init__(self, kwargs: dict[str, Any]) -> None:
        self.kwargs = kwargs


class _ToolTimeout(TimeoutError):
    """The ``timeout=`` limit ran out (as opposed to a TimeoutError raised by the handler)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"no answer within {seconds:g} s")
        self.seconds = seconds


def _first_paragraph(handler: Any) -> str:
    doc = inspect.getdoc(handler) or ""
    para = doc.strip().split("\n\n", 1)[0]
    return " ".join(line.strip() for line in para.splitlines()).strip()


def _attr(obj: Any, name: str) -> Any:
    try:
        return getattr(obj, name, None)
    except Exception:  # a property on a third-party exception may itself raise
        return None


def _is_429(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool) and v == 429) or v == "429"


def is_rate_limit(exc: BaseException) -> bool:
    """A rate-limit exception: a class named like ``*RateLimit*`` / ``TooManyRequests`` anywhere
    in its MRO, or HTTP status 429 on it (``status_code``, ``status``, ``http_status``, ``code``)
    or on its ``response``."""
    for cls in type(exc).__mro__:
        n = cls.__name__.lower().replace("_", "")
        if "ratelimit" in n or "toomanyrequests" in n:
            return True
    for holder in (exc, _attr(exc, "response")):
        if holder is None:
            continue
        for name in ("status_code", "status", "http_status", "code"):
            if _is_429(_attr(holder, name)):
                return True
    return False


def _retry_after(exc: BaseException) -> str:
    v = _attr(exc, "retry_after")
    if isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < 86400:
        return f"; the service asks to wait {v:g} s"
    return ""


class _ToolSpec:
    """Everything ``@tool`` checked at decoration time, and the one decision flow."""

    def __init__(self, handler: Callable[..., Any], *, input_schema: Any, checks: Any,
                 output_schema: Any, policy: Any, name: str | None, description: str | None,
                 max_tokens: int | None, timeout: float | None) -> None:
        if not callable(handler):
            raise TypeError(f"@tool needs a function to wrap, not {type(handler).__name__}")
        self.handler = handler
        self.is_async = inspect.iscoroutinefunction(handler)
        self.name = name if name is not None else getattr(handler, "__name__", "")
        if not isinstance(self.name, str) or not _NAME_RE.fullmatch(self.name):
            raise ValueError(f"tool name {self.name!r} is not valid: use 1-128 letters, digits, "
                             "'_', '-' or '.' (pass name=...)")
        if description is not None and not isinstance(description, str):
            raise TypeError("description must be a string")
        self.description = description if description is not None else _first_paragraph(handler)
        self.validator = compile_input_schema(input_schema)          # InvalidSchemaError now
        self.input_schema = input_schema
        self.checks = normalize_checks(checks)
        if output_schema is not None:
            compile_schema(output_schema)                            # InvalidSchemaError now
        self.user_output_schema = output_schema
        self.output_schema = output_schema if output_schema is not None else envelope_json_schema()
        self.options: dict[str, Any] = {}
        if output_schema is not None:
            self.options["output_schema"] = output_schema
        if max_tokens is not None:
            self.options["max_tokens"] = max_tokens
        parse_options(self.options)                                  # OptionError now
        from toolbound._pipeline import _resolve_policy

        self.policy = _resolve_policy(policy)                        # PolicyError now (files load once)
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                    or not timeout > 0):
            raise ValueError("timeout must be a positive number of seconds (or None)")
        self.timeout = float(timeout) if timeout is not None else None
        self._read_signature(input_schema)

    # -- decoration-time helpers -----------------------------------------------------------------

    def _read_signature(self, input_schema: Any) -> None:
        self.params: set[str] | None = None  # None: accepts any keyword
        self.context_param = False
        try:
            sig = inspect.signature(self.handler)
        except (TypeError, ValueError):
            self.signature = None
            return
        self.signature = sig
        kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        names = {p.name for p in sig.parameters.values() if p.kind in kinds}
        declared = set(input_schema.get("properties", {})) if isinstance(input_schema, dict) else set()
        if "context" in names and "context" not in declared:
            self.context_param = True
            names.discard("context")
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values()):
            self.params = names

    def definition(self) -> dict[str, Any]:
        """An MCP-style tool definition: ``{name, description, inputSchema, outputSchema}``."""
        schema = self.input_schema
        if schema is True:
            schema = {}
        elif schema is False:
            schema = {"not": {}}
        schema = json.loads(json.dumps(schema))
        if "type" not in schema:
            schema = {"type": "object", **schema}
        return {"name": self.name, "description": self.description, "inputSchema": schema,
                "outputSchema": json.loads(json.dumps(self.output_schema))}

    # -- the one decision flow -------------------------------------------------------------------

    def flow(self, arguments: Any, context: Any) -> Generator[Any, Any, SanitizedResult]:
        """Validate, call, map exceptions, sanitize. Yields awaitables (async checks) and one
        :class:`_Call`; the driver sends back the outcome or throws the exception."""
        args = yield from decide(self.validator, self.checks, arguments, context)
        if isinstance(args, Failure):
            return self._failure(args)
        kwargs = self._kwargs(args, context)
        if isinstance(kwargs, Failure):
            return self._failure(kwargs)
        try:
            value = yield _Call(kwargs)
        except Exception as exc:
            return self._exception(exc)
        return self._value(value)

    def _kwargs(self, args: dict[str, Any], context: Any) -> dict[str, Any] | Failure:
        kwargs = dict(args)
        if self.context_param:
            if "context" in kwargs:
                return failure("invalid_arguments", "unexpected field 'context' at /; the caller's "
                               "context is supplied by the host, not in the arguments")
            kwargs["context"] = context
        if self.params is not None:
            extra = sorted(k for k in args if k not in self.params)
            if extra:
                from toolbound._schemacheck import safe_excerpt

                names = ", ".join(repr(safe_excerpt(k, 40)) for k in extra[:5])
                allowed = ", ".join(sorted(self.params))
                return failure("invalid_arguments", f"unexpected field {names} at /"
                               + (f"; expected allowed fields: {allowed}" if allowed else ""))
        if self.signature is not None:
            try:
                self.signature.bind(**kwargs)
            except TypeError:
                missing = [p.name for p in self.signature.parameters.values()
                           if p.default is inspect.Parameter.empty and p.name not in kwargs
                           and p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                          inspect.Parameter.KEYWORD_ONLY)]
                if missing:
                    return failure("invalid_arguments", "; ".join(
                        f"missing required field {m!r} at /" for m in missing))
                return failure("invalid_arguments", "the arguments do not fit the tool's parameters")
        return kwargs

    def _sanitize(self, raw: Any) -> SanitizedResult:
        from toolbound._pipeline import sanitize

        return sanitize(raw, tool=self.name, policy=self.policy, **self.options)

    def _failure(self, env: Failure) -> SanitizedResult:
        # Written by toolbound (or the programmer's check), not by the tool: a ToolError keeps it
        # out of quarantine.
        return self._sanitize(ToolError(env.error.code, env.error.message, retryable=env.error.retryable))

    def _exception(self, exc: Exception) -> SanitizedResult:
        if isinstance(exc, ToolError):
            return self._sanitize(exc)
        name = type(exc).__name__
        if isinstance(exc, _ToolTimeout):
            log.info("toolbound: tool %s timed out after %g s", self.name, exc.seconds)
            return self._failure(failure("timeout", f"the tool did not answer within {exc.seconds:g} s"))
        if isinstance(exc, (TimeoutError, asyncio.TimeoutError)):
            return self._failure(failure("timeout", f"the tool timed out ({name})"))
        if is_rate_limit(exc):
            return self._failure(failure("rate_limited", f"the tool or its upstream service is rate "
                                         f"limiting calls ({name}){_retry_after(exc)}"))
        log.warning("toolbound: tool %s raised %s", self.name, name, exc_info=exc)
        return self._sanitize(exc)

    def _value(self, value: Any) -> SanitizedResult:
        if inspect.isawaitable(value):
            close = getattr(value, "close", None)
            if callable(close):
                close()
            log.warning("toolbound: sync handler of tool %s returned an awaitable", self.name)
            return self._failure(failure("tool_failed", "the tool's handler returned an awaitable "
                                         "instead of a result (declare it with async def)"))
        if isinstance(value, SanitizedResult):
            value = value.envelope
        if isinstance(value, (Success, Failure)):
            value = value.model_dump(mode="json")
        return self._sanitize(value)

    # -- the two drivers -------------------------------------------------------------------------

    def _call_sync(self, kwargs: dict[str, Any]) -> Any:
        if self.timeout is None:
            return self.handler(**kwargs)
        box: dict[str, Any] = {}
        done = threading.Event()
        ctx = contextvars.copy_context()

        def target() -> None:
            try:
                box["value"] = ctx.run(self.handler, **kwargs)
            except BaseException as exc:  # handed to the caller's thread below
                box["error"] = exc
            finally:
                done.set()

        # A daemon thread: a handler that never returns cannot be killed, but must not keep the
        # process alive either. It keeps running in the background after the timeout.
        threading.Thread(target=target, name=f"toolbound-{self.name}", daemon=True).start()
        if not done.wait(self.timeout):
            raise _ToolTimeout(self.timeout)
        if "error" in box:
            raise box["error"]
        return box["value"]

    async def _call_async(self, kwargs: dict[str, Any]) -> Any:
        if self.timeout is None:
            return await self.handler(**kwargs)
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            return await asyncio.wait_for(self.handler(**kwargs), self.timeout)
        except (TimeoutError, asyncio.TimeoutError) as exc:
            # wait_for's own deadline (it chains the CancelledError), not one raised by the handler
            if isinstance(exc.__cause__, asyncio.CancelledError) or loop.time() - started >= self.timeout:
                raise _ToolTimeout(self.timeout) from None
            raise

    def run_sync(self, arguments: Any, context: Any) -> SanitizedResult:
        gen = self.flow(arguments, context)
        try:
            step = next(gen)
            while True:
                if isinstance(step, _Call):
                    try:
                        value = self._call_sync(step.kwargs)
                    except Exception as exc:
                        step = gen.throw(exc)
                    else:
                        step = gen.send(value)
                else:  # an async check on the sync path: refused inside the flow
                    close = getattr(step, "close", None)
                    if callable(close):
                        close()  # never awaited on purpose; closing avoids a "never awaited" warning
                    step = gen.throw(_NoAwait())
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]

    async def run_async(self, arguments: Any, context: Any) -> SanitizedResult:
        gen = self.flow(arguments, context)
        try:
            step = next(gen)
            while True:
                try:
                    if isinstance(step, _Call):
                        value = await self._call_async(step.kwargs)
                    else:
                        value = await step
                except Exception as exc:
                    step = gen.throw(exc)
                else:
                    step = gen.send(value)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]


def _raw(arguments: Any, kwargs: dict[str, Any]) -> Any:
    if arguments is _MISSING:
        return kwargs
    if kwargs:
        raise TypeError("pass the tool's arguments either as one object (dict or JSON text) or as "
                        "keywords, not both")
    return arguments


def tool(*, input_schema: dict[str, Any] | bool, checks: Any = (), output_schema: Any = None,
         policy: Any = None, name: str | None = None, description: str | None = None,
         max_tokens: int | None = None, timeout: float | None = None) -> Callable[[Callable[..., Any]], Any]:
    """Wrap a tool handler so both boundaries of each call are guarded.

    Args:
        input_schema: The JSON Schema of the arguments (Draft 2020-12, or Draft 7 via ``$schema``);
            it must describe an object. Checked and compiled now.
        checks: Layer-2 checks (see :mod:`toolbound.checks`), run in order after the schema.
        output_schema: A JSON Schema the handler's result data must match (else ``invalid_output``).
            Advertised as ``outputSchema``; defaults to toolbound's envelope schema.
        policy: A :class:`toolbound.Policy` or a TOML policy path (loaded now) for ``sanitize()``.
        name: The tool's name (default: the handler's ``__name__``).
        description: The tool's description (default: the docstring's first paragraph).
        max_tokens: The token budget for the rendered result (``sanitize(max_tokens=...)``).
        timeout: Seconds the handler may run; past it the call gives a retryable ``timeout``. An
            async handler is cancelled; a sync one runs in a daemon thread and is abandoned.

    Returns:
        A decorator. The wrapped tool is called as ``t(arguments, context=None)`` or
        ``t(**arguments)`` and returns a :class:`toolbound.SanitizedResult`; it has ``.name``,
        ``.description``, ``.input_schema``, ``.output_schema`` and ``.definition()``.
    """

    def decorate(handler: Callable[..., Any]) -> Any:
        spec = _ToolSpec(handler, input_schema=input_schema, checks=checks, output_schema=output_schema,
                         policy=policy, name=name, description=description, max_tokens=max_tokens,
                         timeout=timeout)
        if spec.is_async:
            @functools.wraps(handler)
            async def async_tool(arguments: Any = _MISSING, /, *, context: Any = None,
                                 **kwargs: Any) -> SanitizedResult:
                return await spec.run_async(_raw(arguments, kwargs), context)

            wrapped: Any = async_tool
        else:
            @functools.wraps(handler)
            def sync_tool(arguments: Any = _MISSING, /, *, context: Any = None,
                          **kwargs: Any) -> SanitizedResult:
                return spec.run_sync(_raw(arguments, kwargs), context)

            wrapped = sync_tool
        wrapped.name = spec.name
        wrapped.description = spec.description
        wrapped.input_schema = spec.input_schema
        wrapped.output_schema = spec.output_schema
        wrapped.definition = spec.definition
        wrapped.timeout = spec.timeout
        wrapped.__toolbound_tool__ = spec
        return wrapped

    return decorate
