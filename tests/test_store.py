"""Stores (memory, SQLite, Redis), handles, pages, and not_found for unknown/expired/foreign handles.

Redis tests run against a real redis-server on loopback (``$REDIS_URL``, default
``redis://127.0.0.1:6379/15``). Without one they skip with a reason locally; under CI (``$CI``
set) they fail instead, because .ci/run starts the server.
"""

import json
import os
import stat
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolbound
from toolbound._fetch import fetch_more, read_page
from toolbound._jsonutil import canonical_json
from toolbound._store import (MemoryStore, RedisStore, SQLiteStore, byte_bounds, default_sqlite_path,
                              new_handle, page_range, paginate, resolve_store, store_from_url,
                              valid_handle)
from toolbound._tokens import get_encoder

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _isolated_store(monkeypatch, tmp_path):
    monkeypatch.delenv("TOOLBOUND_STORE_URL", raising=False)
    monkeypatch.setenv("TOOLBOUND_STORE", str(tmp_path / "default-store.sqlite3"))


def _redis_client():
    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/15")
    try:
        import redis

        client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=5)
        client.ping()
    except Exception as exc:  # noqa: BLE001 - any failure means "no usable server"
        reason = f"no reachable redis-server at {url} ({type(exc).__name__}: {exc})"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; under CI the Redis tests must run (.ci/run starts redis-server)")
        pytest.skip(f"{reason}; start one or set REDIS_URL to run the Redis store's tests")
    return client


@pytest.fixture
def redis_store():
    client = _redis_client()
    prefix = f"toolbound-test:{uuid.uuid4().hex}:"
    yield RedisStore(client=client, prefix=prefix)
    keys = list(client.scan_iter(match=prefix + "*"))
    if keys:
        client.delete(*keys)


@pytest.fixture(params=["memory", "sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def store(request, tmp_path):
    if request.param == "memory":
        return MemoryStore()
    if request.param == "sqlite":
        return SQLiteStore(tmp_path / "s.sqlite3")
    return request.getfixturevalue("redis_store")


def _meta(**kw):
    now = time.time()
    m = {"v": 1, "tool": "t", "session": None, "bounds": [3, 6], "expires": now + 60}
    m.update(kw)
    return m


# --- handles ------------------------------------------------------------------------------------


def test_handles_are_unguessable_and_well_formed():
    hs = {new_handle() for _ in range(2000)}
    assert len(hs) == 2000
    for h in list(hs)[:50]:
        assert valid_handle(h) and h.startswith("tb_") and len(h) == 35  # 24 random bytes: 192 bits
    assert not valid_handle("tb_short") and not valid_handle(None) and not valid_handle("x" * 35)


# --- every store ----------------------------------------------------------------------------------


def test_put_get_read_roundtrip(store):
    h = new_handle()
    body = "abcdéf".encode()
    store.put(h, _meta(bounds=[3, len(body)]), body)
    m = store.get_meta(h)
    assert m["tool"] == "t" and m["bounds"] == [3, len(body)]
    assert store.read(h, 0, 3) == b"abc"
    assert store.read(h, 3, len(body)) == "déf".encode()
    assert store.get_meta(new_handle()) is None and store.read(new_handle(), 0, 3) is None


def test_expired_records_are_gone(store):
    h = new_handle()
    store.put(h, _meta(expires=time.time() + 0.3), b"abcdef")
    assert store.get_meta(h) is not None
    time.sleep(0.45)
    assert store.get_meta(h) is None
    assert store.read(h, 0, 3) is None


def test_not_found_for_unknown_expired_and_foreign_handles(store):
    payload = {"items": [{"id": i, "text": "lorem ipsum " * 20} for i in range(300)]}
    r = toolbound.sanitize(payload, tool="search", max_tokens=400, store=store, session="s1")
    assert r.handle and r.pages > 1
    ok = fetch_more(r.handle, 1, tool="search", session="s1", store=store)
    assert ok.ok and ok.meta["page"] == 1 and ok.meta["pages"] == r.pages
    cases = {
        "unknown": dict(handle=new_handle(), tool="search", session="s1"),
        "malformed": dict(handle="../../etc/passwd", tool="search", session="s1"),
        "other tool": dict(handle=r.handle, tool="other", session="s1"),
        "other session": dict(handle=r.handle, tool="search", session="s2"),
        "no session": dict(handle=r.handle, tool="search", session=None),
    }
    for name, kw in cases.items():
        res = fetch_more(kw.pop("handle"), 1, store=store, **kw)
        assert not res.ok, name
        assert res.envelope.error.code == "not_found", name
        msg = res.envelope.error.message
        assert "Next:" in msg and "call the original tool again" in msg
        assert res.trusted  # toolbound's own message
    # Page out of range: invalid_arguments, saying the range.
    res = fetch_more(r.handle, r.pages + 1, tool="search", session="s1", store=store)
    assert res.envelope.error.code == "invalid_arguments" and f"1 to {r.pages}" in res.envelope.error.message


def test_expired_handle_gives_not_found(tmp_path):
    st_ = SQLiteStore(tmp_path / "ttl.sqlite3", ttl=0.3)
    r = toolbound.sanitize({"x": ["word " * 50] * 100}, tool="t", max_tokens=200, store=st_)
    assert r.handle
    assert fetch_more(r.handle, 1, store=st_).ok
    time.sleep(0.45)
    res = fetch_more(r.handle, 1, store=st_)
    assert res.envelope.error.code == "not_found"


def test_size_cap_means_no_handle_and_meta_says_so():
    small = MemoryStore(max_bytes=1000)
    r = toolbound.sanitize({"rows": list(range(5000))}, tool="t", max_tokens=200, store=small)
    assert r.handle is None and r.pages == 0
    b = r.meta["budget"]
    assert b["truncated"] is True and b["stored"] is False and "cap" in b["why"]
    assert "could not be stored" in r.to_model()


def test_store_failure_is_not_an_exception():
    class Broken(MemoryStore):
        def put(self, *a, **k):
            raise OSError("disk full")

    r = toolbound.sanitize({"rows": list(range(5000))}, tool="t", max_tokens=200, store=Broken())
    assert r.ok and r.handle is None and r.meta["budget"]["stored"] is False


# --- pages ----------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=3000), st.integers(min_value=8, max_value=300))
def test_pages_reassemble_the_payload_exactly(text, page_tokens):
    enc = get_encoder()
    ends = paginate(text, enc, page_tokens)
    assert ends[-1] == len(text)
    assert all(a < b for a, b in zip([0] + ends, ends)) or text == ""
    slices = [text[a:b] for a, b in zip([0] + ends, ends)]
    assert "".join(slices) == text
    assert all(enc.count(s) <= page_tokens for s in slices)
    bb = byte_bounds(text, ends)
    raw = text.encode("utf-8")
    assert b"".join(raw[a:b] for a, b in zip([0] + bb, bb)) == raw


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=40),
                    lambda c: st.lists(c, max_size=30) | st.dictionaries(st.text(max_size=8), c, max_size=10),
                    max_leaves=400),
       st.integers(min_value=64, max_value=400))
def test_stored_pages_reassemble_through_the_store(value, budget):
    store = MemoryStore()
    r = toolbound.sanitize(value, tool="t", max_tokens=budget, store=store)
    assert get_encoder().count(r.to_model()) <= budget
    if r.handle is None:
        return
    parts = [read_page(r.handle, p, store=store)[0] for p in range(1, r.pages + 1)]
    assert b"".join(parts).decode("utf-8") == canonical_json(value)  # the original, not normalised


def test_page_range():
    m = {"bounds": [5, 9, 12]}
    assert [page_range(m, p) for p in (1, 2, 3)] == [(0, 5), (5, 9), (9, 12)]


# --- SQLite specifics -----------------------------------------------------------------------------


def test_sqlite_is_wal_private_and_shared_between_processes(tmp_path):
    path = tmp_path / "sub" / "store.sqlite3"
    s = SQLiteStore(path)
    h = new_handle()
    s.put(h, _meta(), b"abcdef")
    with s.connect() as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal"
    if os.name == "posix":
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    # Several processes writing at once, then everyone reads everything.
    code = ("import sys, time\n"
            "from toolbound._store import SQLiteStore, new_handle\n"
            "s = SQLiteStore(sys.argv[1])\n"
            "hs = []\n"
            "for i in range(25):\n"
            "    h = new_handle(); hs.append(h)\n"
            "    meta = {'v': 1, 'tool': 't', 'session': None, 'bounds': [4], 'expires': time.time() + 60}\n"
            "    s.put(h, meta, b'%04d' % i)\n"
            "print(' '.join(hs))\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=env, text=True) for _ in range(4)]
    handles = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        handles += out.split()
    assert len(handles) == 100
    assert all(s.get_meta(h) is not None and len(s.read(h, 0, 4)) == 4 for h in handles)
    assert s.read(h, 0, 6) == b"abcdef"


def test_sqlite_purges_expired_rows_on_put(tmp_path):
    s = SQLiteStore(tmp_path / "p.sqlite3")
    old = new_handle()
    s.put(old, _meta(expires=time.time() + 0.2), b"x")
    time.sleep(0.3)
    s.put(new_handle(), _meta(), b"y")
    with s.connect() as conn:
        n = conn.execute("SELECT COUNT(*) FROM payloads").fetchone()[0]
    assert n == 1


def test_default_sqlite_path(monkeypatch, tmp_path):
    monkeypatch.setenv("TOOLBOUND_STORE", str(tmp_path / "x.sqlite3"))
    assert default_sqlite_path() == tmp_path / "x.sqlite3"
    monkeypatch.delenv("TOOLBOUND_STORE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    if sys.platform != "win32":
        assert default_sqlite_path() == tmp_path / "xdg" / "toolbound" / "store.sqlite3"


# --- selection ------------------------------------------------------------------------------------


def test_store_urls(monkeypatch, tmp_path):
    assert isinstance(store_from_url("memory:"), MemoryStore)
    assert store_from_url("memory:") is store_from_url("memory:")
    s = store_from_url(f"sqlite://{tmp_path}/a.sqlite3")
    assert isinstance(s, SQLiteStore) and s.path == tmp_path / "a.sqlite3"
    s = store_from_url(f"sqlite:///{tmp_path}/b.sqlite3")  # SQLAlchemy's four-slash absolute form
    assert s.path == tmp_path / "b.sqlite3"
    assert isinstance(store_from_url("redis://127.0.0.1:6379/15"), RedisStore)
    with pytest.raises(toolbound.OptionError, match="unknown store URL"):
        store_from_url("ftp://x")
    monkeypatch.setenv("TOOLBOUND_STORE_URL", "memory:")
    assert isinstance(resolve_store(None), MemoryStore)
    monkeypatch.delenv("TOOLBOUND_STORE_URL")
    assert isinstance(resolve_store(None), SQLiteStore)
    mine = MemoryStore()
    assert resolve_store(mine) is mine
    with pytest.raises(toolbound.OptionError, match="option 'store'"):
        resolve_store(42)


def test_bad_store_option_does_not_raise_from_sanitize():
    r = toolbound.sanitize({"rows": list(range(5000))}, tool="t", max_tokens=200, store=42)
    assert r.ok and r.handle is None and "store" in r.meta["budget"]["why"]


# --- Redis specifics ------------------------------------------------------------------------------


@pytest.mark.redis
def test_redis_keys_carry_a_ttl(redis_store):
    h = new_handle()
    redis_store.put(h, _meta(expires=time.time() + 30), b"abcdef")
    for part in ("meta", "body"):
        ttl = redis_store.client.pttl(f"{redis_store.prefix}{h}:{part}")
        assert 0 < ttl <= 30_000
    assert json.loads(redis_store.client.get(f"{redis_store.prefix}{h}:meta"))["tool"] == "t"


@pytest.mark.redis
def test_redis_from_url_end_to_end(monkeypatch):
    _redis_client()
    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/15")
    monkeypatch.setenv("TOOLBOUND_STORE_URL", url)
    r = toolbound.sanitize({"items": ["alpha beta gamma " * 30] * 50}, tool="t", max_tokens=300)
    assert r.handle and r.meta["budget"]["store"] == "redis"
    parts = [read_page(r.handle, p)[0] for p in range(1, r.pages + 1)]
    assert b"".join(parts).decode() == canonical_json(r.envelope.data)
    client = resolve_store(None).client
    client.delete(f"toolbound:{r.handle}:meta", f"toolbound:{r.handle}:body")
