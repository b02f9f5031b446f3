"""Where truncated results are kept, so nothing is lost: handles, pages and the stores.

When the budget stage cuts a result, the full payload (the canonical JSON string,
``toolbound._jsonutil.canonical_json``) is stored under an unguessable handle (``tb_`` + 192
random bits), bound to the tool and the optional session, with a TTL (default 24 h) and a size
cap (default 256 MiB; a bigger payload gets no handle and the result's ``meta`` says so). Pages
are consecutive slices of that string, computed once at store time so that each sanitized page
renders within the same token budget; pages 1..N concatenated equal the payload exactly.

Stores implement :class:`Store` (a small Protocol): :class:`SQLiteStore` (the default),
:class:`MemoryStore` and :class:`RedisStore`. Selection: the ``store`` option of ``sanitize()`` /
``fetch_more()`` (a store instance, or a URL), else ``$TOOLBOUND_STORE_URL`` (``redis://...``,
``rediss://...``, ``sqlite:///absolute/path``, ``sqlite:relative/path``, ``memory:``), else a
:class:`SQLiteStore` at ``$TOOLBOUND_STORE`` or the user's cache directory
(``$XDG_CACHE_HOME/toolbound/store.sqlite3``, ``~/.cache/toolbound/store.sqlite3``,
``%LOCALAPPDATA%\\toolbound\\store.sqlite3`` on Windows).

Records hold a JSON metadata document (tool, session, page boundaries in bytes, budget,
encoding, SHA-256, expiry...) and the payload as UTF-8 bytes; a page is read as a byte range, so
fetching page 7 of a 60 MB payload never loads the other pages.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import sqlite3
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from toolbound._errors import OptionError
from toolbound._tokens import Encoder, fits_by_bytes

DEFAULT_TTL = 24 * 3600.0
DEFAULT_MAX_PAYLOAD = 256 * 1024 * 1024
HANDLE_RE = re.compile(r"tb_[A-Za-z0-9_-]{32}\Z")
FORMAT_VERSION = 1


def new_handle() -> str:
    """An unguessable handle: ``tb_`` + 24 random bytes (192 bits), URL-safe base64."""
    return "tb_" + secrets.token_urlsafe(24)


def valid_handle(handle: Any) -> bool:
    return isinstance(handle, str) and HANDLE_RE.match(handle) is not None


@runtime_checkable
class Store(Protocol):
    """What a store does. ``meta`` is a JSON-ready dict; ``body`` the payload's UTF-8 bytes.

    Implementations must make records unreadable after ``ttl`` seconds (``get_meta`` and
    ``read`` then return None) and may refuse payloads over ``max_bytes``.
    """

    ttl: float
    max_bytes: int

    def put(self, handle: str, meta: dict[str, Any], body: bytes) -> None:
        """Store a record (overwriting nothing: handles are fresh)."""

    def get_meta(self, handle: str) -> dict[str, Any] | None:
        """The record's metadata, or None when unknown or expired."""

    def read(self, handle: str, start: int, end: int) -> bytes | None:
        """Bytes ``[start, end)`` of the payload, or None when unknown or expired."""


def _expired(meta: dict[str, Any], now: float | None = None) -> bool:
    return float(meta.get("expires", 0)) <= (time.time() if now is None else now)


# --- memory ---------------------------------------------------------------------------------------


class MemoryStore:
    """In-process store (tests, single-process agents). Oldest records are evicted past
    ``max_total_bytes``."""

    name = "memory"

    def __init__(self, *, ttl: float = DEFAULT_TTL, max_bytes: int = DEFAULT_MAX_PAYLOAD,
                 max_total_bytes: int = 1024 * 1024 * 1024) -> None:
        self.ttl = float(ttl)
        self.max_bytes = int(max_bytes)
        self.max_total_bytes = int(max_total_bytes)
        self._lock = threading.Lock()
        self._items: OrderedDict[str, tuple[dict[str, Any], bytes]] = OrderedDict()
        self._total = 0

    def put(self, handle: str, meta: dict[str, Any], body: bytes) -> None:
        with self._lock:
            now = time.time()
            for h in [h for h, (m, _) in self._items.items() if _expired(m, now)]:
                self._total -= len(self._items.pop(h)[1])
            while self._items and self._total + len(body) > self.max_total_bytes:
                self._total -= len(self._items.popitem(last=False)[1][1])
            self._items[handle] = (dict(meta), bytes(body))
            self._total += len(body)

    def get_meta(self, handle: str) -> dict[str, Any] | None:
        with self._lock:
            item = self._items.get(handle)
        if item is None or _expired(item[0]):
            return None
        return dict(item[0])

    def read(self, handle: str, start: int, end: int) -> bytes | None:
        with self._lock:
            item = self._items.get(handle)
        if item is None or _expired(item[0]):
            return None
        return item[1][start:end]

    def __repr__(self) -> str:
        return f"MemoryStore(items={len(self._items)})"


# --- sqlite ---------------------------------------------------------------------------------------


def default_sqlite_path() -> Path:
    """``$TOOLBOUND_STORE``, else the user's cache directory (see the module docstring)."""
    explicit = os.environ.get("TOOLBOUND_STORE")
    if explicit:
        return Path(explicit).expanduser()
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "toolbound" / "store.sqlite3"


class SQLiteStore:
    """A SQLite file shared by every process of the user on this machine.

    WAL journal and ``busy_timeout``, so concurrent readers and writers (threads or processes)
    wait instead of failing; one short-lived connection per operation (nothing leaks, and forks
    are safe); the directory created ``0700`` and the file ``0600`` (payloads can hold private
    data). Expired rows are purged on every ``put``.
    """

    name = "sqlite"

    def __init__(self, path: str | os.PathLike[str] | None = None, *, ttl: float = DEFAULT_TTL,
                 max_bytes: int = DEFAULT_MAX_PAYLOAD, busy_timeout_ms: int = 10_000) -> None:
        self.path = Path(path).expanduser() if path is not None else default_sqlite_path()
        self.ttl = float(ttl)
        self.max_bytes = int(max_bytes)
        self.busy_timeout_ms = int(busy_timeout_ms)
        self._ready_pid: int | None = None
        self._init_lock = threading.Lock()

    @contextlib.contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        """A connection (autocommit; use ``BEGIN`` for transactions), closed on exit."""
        if self._ready_pid != os.getpid():
            self._prepare()
        conn = sqlite3.connect(str(self.path), timeout=self.busy_timeout_ms / 1000, isolation_level=None)
        try:
            conn.execute(f"PRAGMA busy_timeout={self.busy_timeout_ms}")
            yield conn
        finally:
            conn.close()

    def _prepare(self) -> None:
        with self._init_lock:
            if self._ready_pid == os.getpid():
                return
            d = self.path.parent
            if not d.exists():
                d.mkdir(parents=True, exist_ok=True, mode=0o700)
            if not self.path.exists():
                try:
                    os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o600))
                except FileExistsError:
                    pass
            conn = sqlite3.connect(str(self.path), timeout=self.busy_timeout_ms / 1000,
                                   isolation_level=None)
            try:
                conn.execute(f"PRAGMA busy_timeout={self.busy_timeout_ms}")
                try:
                    conn.execute("PRAGMA journal_mode=WAL")  # persistent: set once per file
                except sqlite3.OperationalError:  # pragma: no cover - e.g. a file system without locks
                    pass
                conn.execute("CREATE TABLE IF NOT EXISTS payloads (handle TEXT PRIMARY KEY, "
                             "meta TEXT NOT NULL, body BLOB NOT NULL, expires REAL NOT NULL)")
                conn.execute("CREATE INDEX IF NOT EXISTS payloads_expires ON payloads (expires)")
            finally:
                conn.close()
            self._ready_pid = os.getpid()

    def put(self, handle: str, meta: dict[str, Any], body: bytes) -> None:
        with self.connect() as conn:
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute("DELETE FROM payloads WHERE expires <= ?", (time.time(),))
                conn.execute("INSERT INTO payloads (handle, meta, body, expires) VALUES (?, ?, ?, ?)",
                             (handle, json.dumps(meta, separators=(",", ":")), sqlite3.Binary(body),
                              float(meta["expires"])))
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    def get_meta(self, handle: str) -> dict[str, Any] | None:
        with self.connect() as conn:
            row = conn.execute("SELECT meta FROM payloads WHERE handle = ? AND expires > ?",
                               (handle, time.time())).fetchone()
        return json.loads(row[0]) if row else None

    def read(self, handle: str, start: int, end: int) -> bytes | None:
        with self.connect() as conn:
            row = conn.execute(
                "SELECT substr(body, ?, ?) FROM payloads WHERE handle = ? AND expires > ?",
                (start + 1, max(0, end - start), handle, time.time())).fetchone()
        if row is None:
            return None
        return bytes(row[0]) if row[0] is not None else b""

    def purge(self) -> int:
        """Delete expired rows now; returns how many."""
        with self.connect() as conn:
            return conn.execute("DELETE FROM payloads WHERE expires <= ?", (time.time(),)).rowcount

    def close(self) -> None:
        """Nothing to release (connections live for one operation); kept for symmetry."""

    def __repr__(self) -> str:
        return f"SQLiteStore({str(self.path)!r})"


# --- redis ----------------------------------------------------------------------------------------


class RedisStore:
    """Redis (redis-py, imported only when this store is used). Two keys per record,
    ``<prefix><handle>:meta`` and ``<prefix><handle>:body``, written in one transaction, both with
    the TTL (so Redis itself expires them)."""

    name = "redis"

    def __init__(self, url: str | None = None, *, client: Any = None, prefix: str = "toolbound:",
                 ttl: float = DEFAULT_TTL, max_bytes: int = DEFAULT_MAX_PAYLOAD) -> None:
        if client is None:
            try:
                import redis
            except ImportError:
                raise OptionError("the Redis store needs redis-py: pip install 'toolbound[redis]' "
                                  "(or pip install redis)") from None
            client = redis.Redis.from_url(url or "redis://127.0.0.1:6379/0")
        self.client = client
        self.url = url
        self.prefix = prefix
        self.ttl = float(ttl)
        self.max_bytes = int(max_bytes)

    def _k(self, handle: str, part: str) -> str:
        return f"{self.prefix}{handle}:{part}"

    def put(self, handle: str, meta: dict[str, Any], body: bytes) -> None:
        ms = max(1, int((float(meta["expires"]) - time.time()) * 1000))
        pipe = self.client.pipeline(transaction=True)
        pipe.set(self._k(handle, "body"), body, px=ms)
        pipe.set(self._k(handle, "meta"), json.dumps(meta, separators=(",", ":")), px=ms)
        pipe.execute()

    def get_meta(self, handle: str) -> dict[str, Any] | None:
        raw = self.client.get(self._k(handle, "meta"))
        if raw is None:
            return None
        meta: dict[str, Any] = json.loads(raw)
        return None if _expired(meta) else meta

    def read(self, handle: str, start: int, end: int) -> bytes | None:
        if end <= start:
            return b"" if self.client.exists(self._k(handle, "body")) else None
        pipe = self.client.pipeline(transaction=True)
        pipe.exists(self._k(handle, "body"))
        pipe.getrange(self._k(handle, "body"), start, end - 1)
        exists, data = pipe.execute()
        return bytes(data) if exists else None

    def __repr__(self) -> str:
        return f"RedisStore({self.url!r})"


# --- selection ------------------------------------------------------------------------------------

_stores: dict[str, Any] = {}
_stores_lock = threading.Lock()


def store_from_url(url: str) -> Any:
    """A store for ``url`` (one instance per URL per process)."""
    url = url.strip()
    with _stores_lock:
        st = _stores.get(url)
        if st is None:
            st = _make(url)
            _stores[url] = st
        return st


def _make(url: str) -> Any:
    if url in ("memory:", "memory://", "memory"):
        return MemoryStore()
    if url.startswith(("redis://", "rediss://", "unix://")):
        return RedisStore(url)
    if url.startswith("sqlite:"):
        rest = url[len("sqlite:"):]
        if rest.startswith("//"):
            rest = rest[2:]
            if rest.startswith("//"):  # sqlite:////abs/path (SQLAlchemy spelling)
                rest = rest[1:]
        return SQLiteStore(rest or None)
    raise OptionError(f"unknown store URL {url!r}; use redis://host:port/db, sqlite:///absolute/path, "
                      "sqlite:relative/path or memory:")


def resolve_store(option: Any = None) -> Any:
    """The store to use: the option (an instance or a URL), ``$TOOLBOUND_STORE_URL``, else the
    default :class:`SQLiteStore` (at ``$TOOLBOUND_STORE`` or the user's cache directory)."""
    if option is not None:
        if isinstance(option, str):
            return store_from_url(option)
        if all(callable(getattr(option, m, None)) for m in ("put", "get_meta", "read")):
            return option
        raise OptionError(f"option 'store' must be a store (SQLiteStore, MemoryStore, RedisStore or "
                          f"any object with put/get_meta/read) or a store URL, not "
                          f"{type(option).__name__}")
    url = os.environ.get("TOOLBOUND_STORE_URL")
    if url:
        return store_from_url(url)
    return store_from_url("sqlite:" + str(default_sqlite_path()))


# --- pages ----------------------------------------------------------------------------------------


def paginate(text: str, enc: Encoder, page_tokens: int) -> list[int]:
    """End offsets (characters) of consecutive slices of ``text`` with at most ``page_tokens``
    tokens each (counted exactly, each slice on its own). Deterministic; never empty slices."""
    n = len(text)
    ends: list[int] = []
    if n == 0:
        return [0]
    page_tokens = max(1, page_tokens)
    sample = text[:20_000]
    ratio = len(sample) / max(1, enc.count(sample))  # characters per token
    start = 0
    while start < n:
        if n - start <= page_tokens and fits_by_bytes(text[start:], page_tokens):
            ends.append(n)
            break
        end = min(n, start + max(1, int(page_tokens * ratio * 0.96)))
        good, good_t, bad = 0, 0, 0  # good: longest known fitting end; bad: shortest known over end
        for _ in range(16):
            t = enc.count(text[start:end])
            if t <= page_tokens:
                good, good_t = end, t
                if end >= n or t >= page_tokens * 0.9:
                    break
            else:
                bad = end
            if bad and good:
                nxt = (good + bad) // 2
                if nxt <= good:
                    break
            elif bad:
                nxt = start + int((end - start) * page_tokens * 0.95 / t)
                nxt = max(start + 1, min(nxt, end - 1))
            else:
                nxt = start + int((end - start) * page_tokens * 0.96 / max(t, 1))
                nxt = min(n, max(nxt, end + 1))
            end = nxt
        if not good:  # pragma: no cover - a single character always fits (page_tokens >= 1)
            good, good_t = start + 1, 1
        if good_t >= 16:
            ratio = (good - start) / good_t
        ends.append(good)
        start = good
    return ends


def byte_bounds(text: str, char_ends: list[int]) -> list[int]:
    """Byte end offsets (UTF-8) matching character end offsets."""
    out, prev, acc = [], 0, 0
    for e in char_ends:
        acc += len(text[prev:e].encode("utf-8"))
        out.append(acc)
        prev = e
    return out


def page_range(meta: dict[str, Any], page: int) -> tuple[int, int]:
    bounds = meta["bounds"]
    start = bounds[page - 2] if page > 1 else 0
    return start, bounds[page - 1]
