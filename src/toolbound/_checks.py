"""Layer 2 of argument validation: meaning and authorization, in code.

A check is a plain callable ``check(args, context) -> None | Failure | str``: ``None`` passes, a
:class:`toolbound.Failure` is returned as is, and a string is an ``invalid_arguments`` message for
the model. A check may also raise :class:`toolbound.ToolError` to choose the error code, or return
an awaitable (async checks run only in async tools). Checks run in order; the first failure wins.

The factories here build the common ones:

- :func:`within_workspace` - path arguments stay inside a workspace directory
  (``path_escapes_workspace``);
- :func:`allowed_values`, :func:`max_length`, :func:`max_items` - limits beyond the schema
  (``invalid_arguments``);
- :func:`authorize` - ownership and permission rules (``not_authorized``).

Fields are named by a top-level name (``"path"``) or an RFC 6901 JSON Pointer (``"/src/path"``);
a ``*`` token in a pointer matches every item of an array or every member of an object
(``"/files/*/path"``). A missing field (or ``null``) passes: requiring it is the schema's job.
Messages never echo hostile values beyond a short excerpt of safe characters.
"""

from __future__ import annotations

import errno
import inspect
import json
import logging
import os
import re
import stat
import unicodedata
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Any, Union
from urllib.parse import unquote_to_bytes

from toolbound._envelope import Failure, failure
from toolbound._errors import ToolError
from toolbound._jsonutil import escape_token, unescape_token
from toolbound._schemacheck import json_type, safe_excerpt

log = logging.getLogger("toolbound")

CheckResult = Union[None, Failure, str]
Check = Callable[[dict[str, Any], Any], Union[CheckResult, Awaitable[CheckResult]]]

__all__ = ["Check", "allowed_values", "authorize", "max_items", "max_length", "resolve_within",
           "within_workspace"]


# --- fields ---------------------------------------------------------------------------------------

def _parse_field(field: Any) -> tuple[str, ...]:
    if not isinstance(field, str):
        raise TypeError(f"a field must be a top-level name or a JSON Pointer string, not "
                        f"{type(field).__name__}")
    if field.startswith("/"):
        return tuple(unescape_token(t) for t in field[1:].split("/"))
    if not field:
        raise ValueError("a field name must not be empty; use a top-level name like 'path' or a "
                         "JSON Pointer like '/src/path'")
    return (field,)


def _label_token(token: str, wild: bool) -> str:
    # Tokens the programmer wrote are shown as is; keys matched by '*' come from the model.
    return escape_token(safe_excerpt(token, 24) if wild else token)


def _select(args: Any, parts: tuple[str, ...]) -> Iterator[tuple[str, Any]]:
    """Yield ``(label, value)`` for every present, non-null value the field selects."""
    stack: list[tuple[Any, int, str]] = [(args, 0, "")]
    while stack:
        node, i, label = stack.pop()
        if i == len(parts):
            if node is not None:
                yield label, node
            continue
        tok = parts[i]
        if tok == "*":
            if isinstance(node, list):
                for j in range(len(node) - 1, -1, -1):
                    stack.append((node[j], i + 1, f"{label}/{j}"))
            elif isinstance(node, dict):
                for k in reversed(list(node)):
                    stack.append((node[k], i + 1, f"{label}/{_label_token(str(k), True)}"))
            continue
        if isinstance(node, dict) and tok in node:
            stack.append((node[tok], i + 1, f"{label}/{_label_token(tok, False)}"))
        elif isinstance(node, list) and tok.isdigit() and tok.isascii() and int(tok) < len(node):
            stack.append((node[int(tok)], i + 1, f"{label}/{tok}"))


def _describe_field(label: str) -> str:
    name = label[1:]
    if "/" not in name and "~" not in name:
        return f"field '{name}'"
    return f"the field at {label}"


def _name(obj: Any) -> str:
    return getattr(obj, "__name__", None) or type(obj).__name__


# --- within_workspace -----------------------------------------------------------------------------

MAX_PATH_CHARS = 4096
MAX_SYMLINK_HOPS = 40
_PERCENT_ROUNDS = 4

# Characters some layer (NFKC, Windows "best fit" code pages, lenient decoders) may read as '.', '/'
# or '\'. NFKC covers the fullwidth and small forms; these are the ones it leaves alone.
_ODD_SEPARATORS = str.maketrans({
    "\u2215": "/", "\u2044": "/", "\u29f8": "/", "\u2571": "/",   # division / fraction slash...
    "\u2216": "\\", "\u29f5": "\\", "\u29f9": "\\", "\ufe68": "\\",  # set minus, small reverse solidus
    "\u3002": ".", "\uff61": ".", "\u2024": ".", "\ufe52": ".", "\u0701": ".", "\u0702": ".",
})
_DRIVE_RE = re.compile(r"[A-Za-z]:")
_URL_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://")


class _Escape(Exception):
    """Internal: why a path is refused (``reason`` completes "it ...")."""

    def __init__(self, reason: str, code: str = "path_escapes_workspace") -> None:
        super().__init__(reason)
        self.reason = "it " + reason
        self.code = code


def _percent_decode(text: str) -> str:
    """Decode %XX repeatedly (double encoding) until nothing changes; bytes must be UTF-8."""
    for _ in range(_PERCENT_ROUNDS):
        if "%" not in text:
            return text
        raw = unquote_to_bytes(text)
        try:
            decoded = raw.decode("utf-8")  # strict: overlong forms like %c0%ae are refused here
        except UnicodeDecodeError:
            raise _Escape("contains percent-encoded bytes that are not valid UTF-8 (such as an "
                          "overlong '.' or '/')") from None
        if decoded == text:
            return text
        text = decoded
    if "%" in text and unquote_to_bytes(text) != text.encode("utf-8", "surrogatepass"):
        raise _Escape(f"is percent-encoded more than {_PERCENT_ROUNDS} times")
    return text


def _unicode_fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).translate(_ODD_SEPARATORS)


def _variants(value: str) -> list[tuple[str, str]]:
    """The readings of ``value`` some layer might use, each with the lead-in for its reason."""
    decoded = _percent_decode(value)
    readings = [("", value), ("once its percent-encoding is decoded, ", decoded),
                ("once look-alike Unicode dots and slashes are read as '.' and '/', ",
                 _unicode_fold(value)),
                ("once its percent-encoding is decoded and look-alike Unicode dots and slashes are "
                 "read as '.' and '/', ", _unicode_fold(decoded))]
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for lead, text in readings:
        if text not in seen:
            seen.add(text)
            out.append((lead, text))
    return out


def _root_of(root: str | os.PathLike[str]) -> str:
    try:
        real = os.path.realpath(os.path.abspath(os.path.expanduser(os.fspath(root))))
    except (OSError, ValueError, RuntimeError):
        raise _Escape("could not be checked because the workspace root cannot be resolved") from None
    return real


def _inside(path: str, root: str) -> bool:
    if path == root:
        return True
    prefix = root if root.endswith(os.sep) else root + os.sep
    return path.startswith(prefix)


def _resolve(start: str, parts: list[str]) -> str:
    """Resolve ``parts`` below the fully resolved directory ``start`` like the OS would: each
    symbolic link is followed (its target re-read component by component), components that do not
    exist are appended as written, and ``..`` climbs from the resolved location. Never loops."""
    path = start
    todo = list(reversed(parts))
    hops = 0
    while todo:
        name = todo.pop()
        if name in ("", "."):
            continue
        if name == "..":
            path = os.path.dirname(path)
            continue
        candidate = os.path.join(path, name)
        try:
            st = os.lstat(candidate)
        except (FileNotFoundError, NotADirectoryError):
            path = candidate  # does not exist (yet): the rest is read as written
            continue
        except OSError as exc:
            why = errno.errorcode.get(exc.errno or 0, "") if exc.errno else ""
            raise _Escape("could not be checked" + (f" ({why})" if why else "")) from None
        if stat.S_ISLNK(st.st_mode):
            hops += 1
            if hops > MAX_SYMLINK_HOPS:
                raise _Escape(f"runs into a symbolic link loop (or a chain of more than "
                              f"{MAX_SYMLINK_HOPS} links)")
            try:
                target = os.readlink(candidate)
            except OSError:
                raise _Escape("could not be checked (a symbolic link cannot be read)") from None
            if os.path.isabs(target):
                path = os.path.abspath(os.sep)
                target = target.lstrip("/" + os.sep)
            todo.extend(reversed(target.replace("\\", "/").split("/")))
            continue
        path = candidate
    return path


def _check_one(root_real: str, text: str) -> str:
    """The resolved absolute path of one reading, or raise :class:`_Escape`."""
    if "\x00" in text:
        raise _Escape("contains a NUL byte")
    p = text.replace("\\", "/")
    if p.startswith("//"):
        raise _Escape("is a Windows UNC or device path (like \\\\server\\share)")
    if _DRIVE_RE.match(p):
        raise _Escape("has a Windows drive letter (like C:\\ or C:foo)")
    if _URL_RE.match(p):
        raise _Escape("is a URL, not a path inside the workspace")
    parts = p.split("/")
    first = parts[0]
    if first.startswith("~") and (first == "~" or os.path.expanduser(first) != first):
        raise _Escape("starts with '~' (a home directory)")
    absolute = p.startswith("/")
    start = os.path.abspath(os.sep) if absolute else root_real
    resolved = _resolve(start, parts)
    if _inside(resolved, root_real):
        return resolved
    lexical = os.path.normpath(os.path.join(start, *[x for x in parts if x]))
    if _inside(lexical, root_real):
        raise _Escape("follows a symbolic link that leads outside the workspace")
    if absolute:
        raise _Escape("is an absolute path outside the workspace")
    raise _Escape("climbs above the workspace root with '..'")


def _check_path(root: str | os.PathLike[str], value: str) -> str:
    """Resolve ``value`` inside ``root``; raise :class:`_Escape` when any reading leaves it."""
    if len(value) > MAX_PATH_CHARS:
        raise _Escape(f"is longer than {MAX_PATH_CHARS} characters", "invalid_arguments")
    if any("\ud800" <= c <= "\udfff" for c in value):
        raise _Escape("contains invalid Unicode (a lone surrogate)")
    root_real = _root_of(root)
    resolved = ""
    for prefix, text in _variants(value):
        try:
            r = _check_one(root_real, text)
        except _Escape as exc:
            exc.reason = prefix + exc.reason
            raise
        if not prefix:
            resolved = r
    return resolved


def _path_message(label: str, value: str, reason: str) -> str:
    head = safe_excerpt(value[:24], 24, extra="~%:\\")
    shown = f"starting '{head}'" if len(value) > 24 else f"'{head}'"
    return f"the path in {_describe_field(label)} ({shown}) is not allowed: {reason}"


def resolve_within(root: str | os.PathLike[str], path: str) -> str:
    """The absolute, symlink-resolved location of ``path`` inside the workspace ``root``.

    Use it in the handler to open exactly what :func:`within_workspace` checked (a relative path
    is relative to ``root``, never to the process's working directory).

    Raises:
        ToolError: ``path_escapes_workspace`` (or ``invalid_arguments`` for a non-string or an
            over-long path) with a message for the model.
    """
    if not isinstance(path, str):
        raise ToolError("invalid_arguments", failure(
            "invalid_arguments", f"a path must be a string (got {json_type(path)})").error.message)
    try:
        return _check_path(root, path)
    except _Escape as exc:
        raise ToolError(exc.code, failure(exc.code, _path_message("/path", path, exc.reason))
                        .error.message) from None


class _WithinWorkspace:
    def __init__(self, root: str | os.PathLike[str], fields: tuple[str, ...]) -> None:
        if not isinstance(root, (str, os.PathLike)) or not os.fspath(root):
            raise TypeError("within_workspace() needs the workspace root as a non-empty path")
        if not fields:
            raise TypeError("within_workspace() needs at least one field, e.g. "
                            "within_workspace(root, 'path')")
        self.root = root
        self.fields = tuple(fields)
        self._parts = [_parse_field(f) for f in fields]
        self.__name__ = "within_workspace"

    def __repr__(self) -> str:
        return f"within_workspace({os.fspath(self.root)!r}, {', '.join(map(repr, self.fields))})"

    def __call__(self, args: dict[str, Any], context: Any = None) -> Failure | None:
        for parts in self._parts:
            for label, value in _select(args, parts):
                values = [(label, value)]
                if isinstance(value, list):  # a list of paths: each one is checked
                    values = [(f"{label}/{i}", v) for i, v in enumerate(value) if v is not None]
                for lab, v in values:
                    if not isinstance(v, str):
                        return failure("invalid_arguments", f"{_describe_field(lab)} must be a path "
                                       f"string like 'reports/2026/q1.csv' (got {json_type(v)})")
                    try:
                        _check_path(self.root, v)
                    except _Escape as exc:
                        return failure(exc.code, _path_message(lab, v, exc.reason))
        return None


def within_workspace(root: str | os.PathLike[str], *fields: str) -> Check:
    """Path arguments must stay inside the workspace directory ``root``.

    Each selected value (a string, or a list of strings) is read as a path relative to ``root``
    (an absolute path must lie inside it) and refused with ``path_escapes_workspace`` when it
    leaves the workspace under *any* reading a later layer might apply:

    - ``..`` components, absolute paths, ``~`` / ``~user``, Windows drive letters (``C:\\``,
      ``C:foo``), UNC and device paths (``\\\\server\\share``), URLs; backslashes count as
      separators;
    - percent-encoding, decoded repeatedly (``%2e%2e%2f``, ``%252e``), and look-alike Unicode dots
      and slashes (fullwidth ``．``, one-dot leader, division slash...); percent-encoded bytes that
      are not UTF-8 (overlong ``%c0%ae``) are refused;
    - symbolic links: every existing component is resolved (the deepest existing ancestor's real
      path plus the rest), so a link inside the workspace that points outside is refused; link
      loops and chains over 40 links are refused without hanging;
    - NUL bytes and lone surrogates are refused.

    The check cannot see hard links, and a link created after it ran; open what
    :func:`resolve_within` returns (or use ``O_NOFOLLOW``) to close that window.

    Args:
        root: The workspace directory (``~`` is expanded; symlinks in it are resolved).
        *fields: Top-level names or JSON Pointers of the path arguments (``*`` matches each item).
    """
    return _WithinWorkspace(root, fields)


# --- limits beyond the schema ---------------------------------------------------------------------

def _fmt_value(v: Any) -> str:
    try:
        text = json.dumps(v, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


class _AllowedValues:
    def __init__(self, field: str, values: Iterable[Any]) -> None:
        self.field = field
        self._parts = _parse_field(field)
        if isinstance(values, (str, bytes)):
            raise TypeError("allowed_values() needs a collection of values, not a single string")
        self.values = list(values)
        if not self.values:
            raise ValueError("allowed_values() needs at least one allowed value")
        self.__name__ = "allowed_values"

    def __repr__(self) -> str:
        return f"allowed_values({self.field!r}, {self.values!r})"

    def _ok(self, v: Any) -> bool:
        # bool is not 1 and 1 is not True, as in JSON
        return any(v == a and type(v) is type(a) or (isinstance(v, (int, float)) and isinstance(
            a, (int, float)) and not isinstance(v, bool) and not isinstance(a, bool) and v == a)
            for a in self.values)

    def __call__(self, args: dict[str, Any], context: Any = None) -> Failure | None:
        opts = ", ".join(_fmt_value(a) for a in self.values[:12])
        if len(self.values) > 12:
            opts += f" (and {len(self.values) - 12} more)"
        for label, value in _select(args, self._parts):
            items = value if isinstance(value, list) and not self._ok(value) else [value]
            for v in items:
                if not self._ok(v):
                    return failure("invalid_arguments", f"value not allowed in {_describe_field(label)} "
                                   f"(got a {json_type(v)} that is not on the list); expected one of "
                                   f"{opts}")
        return None


def allowed_values(field: str, values: Iterable[Any]) -> Check:
    """The field's value (or each item, when it is a list) must be one of ``values``."""
    return _AllowedValues(field, values)


class _MaxSize:
    def __init__(self, kind: str, field: str, n: int) -> None:
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"max_{kind}() needs a limit that is a non-negative integer")
        self.kind, self.field, self.n = kind, field, n
        self._parts = _parse_field(field)
        self.__name__ = f"max_{kind}"

    def __repr__(self) -> str:
        return f"max_{self.kind}({self.field!r}, {self.n})"

    def __call__(self, args: dict[str, Any], context: Any = None) -> Failure | None:
        for label, value in _select(args, self._parts):
            if self.kind == "length" and isinstance(value, str) and len(value) > self.n:
                return failure("invalid_arguments", f"{_describe_field(label)} is too long "
                               f"({len(value):,} characters); expected at most {self.n:,} characters")
            if self.kind == "items" and isinstance(value, list) and len(value) > self.n:
                return failure("invalid_arguments", f"{_describe_field(label)} has too many items "
                               f"({len(value):,}); expected at most {self.n:,} items, so split the "
                               "request into several calls")
        return None


def max_length(field: str, n: int) -> Check:
    """A string field may hold at most ``n`` characters (a limit beyond the schema's)."""
    return _MaxSize("length", field, n)


def max_items(field: str, n: int) -> Check:
    """An array field may hold at most ``n`` items (a limit beyond the schema's)."""
    return _MaxSize("items", field, n)


# --- authorization --------------------------------------------------------------------------------

class _Authorize:
    def __init__(self, predicate: Callable[[dict[str, Any], Any], Any], message: str | None) -> None:
        if not callable(predicate):
            raise TypeError("authorize() needs a callable (args, context) -> bool")
        if message is not None and (not isinstance(message, str) or not message.strip()):
            raise TypeError("authorize() message must be a non-empty string")
        self.predicate = predicate
        self.message = message
        self.__name__ = f"authorize({_name(predicate)})"

    def __repr__(self) -> str:
        return f"authorize({self.predicate!r})"

    def _verdict(self, outcome: Any) -> Failure | None:
        if outcome is True:
            return None
        if isinstance(outcome, Failure):
            return outcome
        if isinstance(outcome, str) and outcome.strip():
            return failure("not_authorized", outcome)
        return failure("not_authorized", self.message)  # False, None, anything else: denied

    def _error(self, exc: Exception) -> Failure:
        if isinstance(exc, ToolError):
            return failure(exc.code, message=exc.message, retryable=exc.retryable)
        if not isinstance(exc, PermissionError):
            log.warning("toolbound: authorization check %s raised", self.__name__, exc_info=True)
            return failure("not_authorized", f"the authorization check could not be completed "
                           f"({type(exc).__name__}), so the call was refused")
        return failure("not_authorized", self.message)

    async def verdict_of(self, pending: Awaitable[Any]) -> Failure | None:
        try:
            outcome = await pending
        except Exception as exc:
            return self._error(exc)
        return self._verdict(outcome)

    def __call__(self, args: dict[str, Any], context: Any = None) -> Any:
        try:
            outcome = self.predicate(args, context)
        except Exception as exc:
            return self._error(exc)
        if inspect.isawaitable(outcome):
            return _PendingVerdict(self, outcome)
        return self._verdict(outcome)


class _PendingVerdict:
    """The verdict of an async predicate: awaitable, and closable without a "never awaited"
    warning when the sync path refuses it."""

    def __init__(self, auth: _Authorize, pending: Awaitable[Any]) -> None:
        self._auth = auth
        self._pending = pending

    def __await__(self) -> Any:
        return self._auth.verdict_of(self._pending).__await__()

    def close(self) -> None:
        close = getattr(self._pending, "close", None)
        if callable(close):
            close()


def authorize(predicate: Callable[[dict[str, Any], Any], Any], message: str | None = None) -> Check:
    """An ownership or permission rule: ``predicate(args, context)`` must return ``True``.

    ``False`` (or anything but ``True``) gives ``not_authorized`` with ``message`` (e.g. "this
    account must belong to the caller"); a string return is used as the message. The predicate
    may raise :class:`toolbound.ToolError` to pick another code; any other exception refuses the
    call (fail closed), naming the exception type only. It may be ``async`` in async tools.
    """
    return _Authorize(predicate, message)
