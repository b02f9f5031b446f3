"""``toolbound fetch``: every page, fetched by a NEW process, reproduces the payload byte for byte."""

import json
import os
import re
from concurrent.futures import ThreadPoolExecutor

import pytest

import toolbound
from toolbound._jsonutil import canonical_json
from toolbound._tokens import get_encoder


@pytest.fixture
def store_env(monkeypatch, tmp_path):
    """TOOLBOUND_STORE at a temp SQLite file, for this process and the CLI subprocesses."""
    path = tmp_path / "store.sqlite3"
    monkeypatch.delenv("TOOLBOUND_STORE_URL", raising=False)
    monkeypatch.setenv("TOOLBOUND_STORE", str(path))
    return {"TOOLBOUND_STORE": str(path)}


def fetch_all(run_cli, handle: str, pages: int, env: dict, *extra: str) -> bytes:
    """Every page, each by a new ``python -m toolbound fetch --raw`` process (several at a time)."""
    def page(p: int) -> bytes:
        proc = run_cli("fetch", handle, "--page", str(p), "--raw", *extra, env=env)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout_bytes

    with ThreadPoolExecutor(max_workers=min(8, (os.cpu_count() or 2) * 2)) as pool:
        return b"".join(pool.map(page, range(1, pages + 1)))


def one_megabyte() -> dict:
    items = [{"id": f"INC-{i:05d}", "seq": i, "title": f"Disk almost full on host-{i % 97}",
              "severity": ("low", "medium", "high")[i % 3], "tags": ["ops", f"rack-{i % 12}"],
              "detail": f"Volume /data on host-{i % 97} is at {80 + i % 20}% — résumé of the alert ✓ " * 3}
             for i in range(3600)]
    return {"query": "disk", "count": len(items), "items": items}


@pytest.mark.slow
def test_one_megabyte_result_pages_fetched_by_new_processes_reproduce_it(store_env, run_cli):
    data = one_megabyte()
    canonical = canonical_json(data)
    assert len(canonical.encode()) > 1_000_000
    r = toolbound.sanitize(data, tool="alerts", max_tokens=2000)
    text = r.to_model()
    assert get_encoder().count(text) <= 2000
    assert r.handle in text and "toolbound_fetch_more" in text
    # ids are shown (external here: inside the block quoting the whole result)
    assert '{"id":"INC-00000","seq":0,' in text and '{"id":"INC-00001","seq":1,' in text
    assert "severity: high 1,200, low 1,200, medium 1,200" in text
    assert r.pages > 1

    raw = fetch_all(run_cli, r.handle, r.pages, store_env)
    assert raw == canonical.encode("utf-8")
    assert json.loads(raw) == data


def test_fetch_sanitized_page_and_formats(store_env, run_cli):
    data = {"rows": [{"id": i, "text": "row text " * 30} for i in range(80)]}
    r = toolbound.sanitize(data, tool="rows", max_tokens=600, session="sess-1")
    assert 2 < r.pages < 60
    proc = run_cli("fetch", r.handle, "--page", "2", "--session", "sess-1", env=store_env)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["envelope"]["ok"] is True and out["meta"]["page"] == 2 and out["meta"]["pages"] == r.pages
    assert out["trusted"] is False and out["provenance"]["tool"] == "rows"
    assert get_encoder().count(out["model_text"]) <= 600
    proc = run_cli("fetch", r.handle, "--page", "2", "--session", "sess-1", "--format", "model",
                   env=store_env)
    assert proc.returncode == 0 and f"page 2 of {r.pages}" in proc.stdout and "next:" in proc.stdout
    # The raw pages, in new processes, are the payload.
    raw = fetch_all(run_cli, r.handle, r.pages, store_env, "--session", "sess-1")
    assert raw == canonical_json(data).encode()


def test_fetch_unknown_foreign_and_bad_pages(store_env, run_cli):
    r = toolbound.sanitize({"rows": list(range(3000))}, tool="rows", max_tokens=200)
    fake = "tb_" + "A" * 32
    proc = run_cli("fetch", fake, "--page", "1", env=store_env)
    assert proc.returncode == 0
    env = json.loads(proc.stdout)["envelope"]
    assert env["ok"] is False and env["error"]["code"] == "not_found" and "Next:" in env["error"]["message"]
    proc = run_cli("fetch", r.handle, "--page", "1", "--tool", "other", env=store_env)
    assert json.loads(proc.stdout)["envelope"]["error"]["code"] == "not_found"
    proc = run_cli("fetch", fake, "--page", "1", "--raw", env=store_env)
    assert proc.returncode == 1 and proc.stdout == "" and "no stored result" in proc.stderr
    proc = run_cli("fetch", r.handle, "--page", str(r.pages + 1), "--raw", env=store_env)
    assert proc.returncode == 1 and "out of range" in proc.stderr
    proc = run_cli("fetch", r.handle, "--page", "0", env=store_env)
    assert proc.returncode == 2 and "--page" in proc.stderr
    proc = run_cli("fetch", r.handle, "--page", "x", env=store_env)
    assert proc.returncode == 2


def test_sanitize_max_tokens_then_fetch(store_env, run_cli, tmp_path):
    data = {"log": "\n".join(f"2026-05-18T10:{i // 60 % 60:02d}:{i % 60:02d} GET /api/items/{i} 200"
                             for i in range(1500))}
    f = tmp_path / "result.json"
    f.write_text(json.dumps(data))
    proc = run_cli("sanitize", str(f), "--tool", "logs", "--max-tokens", "1200", env=store_env)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["handle"] and out["pages"] > 1
    assert get_encoder().count(out["model_text"]) <= 1200 and 2 < out["pages"] < 60
    assert out["meta"]["budget"]["truncated"] is True
    handle, pages = out["handle"], out["pages"]
    assert re.fullmatch(r"tb_[A-Za-z0-9_-]{32}", handle)
    assert fetch_all(run_cli, handle, pages, store_env, "--tool", "logs") == canonical_json(data).encode()
    proc = run_cli("sanitize", str(f), "--max-tokens", "10", env=store_env)
    assert proc.returncode == 2 and "max_tokens" in proc.stderr


def test_fetch_help(run_cli):
    proc = run_cli("fetch", "--help")
    assert proc.returncode == 0 and "--raw" in proc.stdout and "--page" in proc.stdout
