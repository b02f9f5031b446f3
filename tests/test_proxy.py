"""``toolbound proxy`` end to end over real stdio, plus the policy's ``[tools.NAME.args]`` table.

The MCP SDK's client spawns ``python -m toolbound proxy --policy ... --log ... -- python
tests/mcp_upstream_server.py``; the scenario runs once per module (one proxy process, plus one more
for the crash test) and the tests below assert on what it saw.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

import toolbound
import toolbound._stages.detect as detect_stage

anyio = pytest.importorskip("anyio")
pytest.importorskip("mcp")

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = ROOT / "tests" / "mcp_upstream_server.py"
TIMEOUT = 8  # the proxy's --timeout, seconds (generous: CI machines can be slow)
BUDGET = 2000
DETECT_NOOP = bool(getattr(detect_stage, "NOOP", False))

CLEAN = {"status": "ok", "name": "alpha", "items": [1, 2, 3], "nested": {"flag": True, "ratio": 0.5}}
POLICY = f"""
[tools.clean]
external = []

[tools.get_ticket]
external = ["/body"]

[tools.big]
max_tokens = {BUDGET}

[tools.read_note.args]
workspace = "ws"
path_fields = ["/path"]
"""


def _env(tmp: Path) -> dict[str, str]:
    return {"PYTHONPATH": str(ROOT / "src"), "TOOLBOUND_STORE": str(tmp / "store.sqlite3"),
            "UPSTREAM_CALLS": str(tmp / "calls.jsonl"), "PYTHONUNBUFFERED": "1"}


def _params(tmp: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolbound", "proxy", "--policy", str(tmp / "policy.toml"), "--log",
              str(tmp / "findings.jsonl"), "--timeout", str(TIMEOUT), "--",
              sys.executable, str(UPSTREAM)],
        env=_env(tmp), cwd=str(ROOT))


def _upstream_calls(tmp: Path) -> list[dict]:
    p = tmp / "calls.jsonl"
    return [json.loads(line) for line in p.read_text().splitlines()] if p.exists() else []


async def _scenario(tmp: Path, errlog) -> dict:
    seen: dict = {"timings": {}}
    await _drive(tmp, seen, errlog)
    return seen


async def _drive(tmp: Path, seen: dict, errlog) -> None:
    params = _params(tmp)
    async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as s:
        seen["init"] = await s.initialize()
        page1 = await s.list_tools()
        page2 = await s.list_tools(params=_cursor(page1.next_cursor)) if page1.next_cursor else None
        seen["pages"] = (page1, page2)
        seen["clean"] = await s.call_tool("clean", {"id": 7})
        seen["ticket"] = await s.call_tool("get_ticket", {"id": 91})
        seen["failing"] = await s.call_tool("failing", {})
        seen["invalid"] = await s.call_tool("clean", {"id": "seven"})
        seen["escape"] = await s.call_tool("read_note", {"path": "../../etc/passwd"})
        seen["note"] = await s.call_tool("read_note", {"path": "notes/a.txt"})
        t = time.monotonic()
        seen["big"] = await s.call_tool("big", {})
        seen["timings"]["big"] = time.monotonic() - t
        handle = seen["big"].meta["toolbound"]["handle"]
        seen["page2"] = await s.call_tool("toolbound_fetch_more", {"handle": handle, "page": 2})
        seen["bad_handle"] = await s.call_tool("toolbound_fetch_more",
                                               {"handle": "tb_" + "x" * 32, "page": 1})
        seen["bad_fetch_args"] = await s.call_tool("toolbound_fetch_more", {"page": 2})
        try:
            await s.call_tool("no_such_tool", {})
        except MCPError as exc:
            seen["unknown"] = exc
        # cancellation: the host gives up once the upstream handler runs (its progress note
        # proves it); the cancel must reach the upstream server
        progress: list = []
        started = anyio.Event()

        async def on_progress(value, total, message):
            progress.append((value, total, message))
            started.set()

        async def slow_call():
            await s.call_tool("slow", {}, progress_callback=on_progress)

        async with anyio.create_task_group() as tg:
            tg.start_soon(slow_call)
            with anyio.move_on_after(20):
                await started.wait()
            tg.cancel_scope.cancel()
        seen["progress"] = progress
        seen["mismatch"] = await s.call_tool("mismatch", {})
        seen["after_cancel"] = await s.call_tool("clean", {"id": 8})
        t = time.monotonic()
        seen["slow"] = await s.call_tool("slow", {})
        seen["timings"]["slow"] = time.monotonic() - t
        seen["after_timeout"] = await s.call_tool("clean", {"id": 9})
        for _ in range(50):  # the upstream writes its cancellation note asynchronously
            if sum(1 for c in _upstream_calls(tmp) if c.get("cancelled")) >= 2:
                break
            await anyio.sleep(0.1)


def _cursor(cursor):
    import mcp_types

    return mcp_types.PaginatedRequestParams(cursor=cursor)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("proxy")
    (tmp / "policy.toml").write_text(POLICY)
    (tmp / "ws" / "notes").mkdir(parents=True)
    t = time.monotonic()
    with open(tmp / "proxy.stderr", "w") as errlog:  # the proxy's (and upstream's) stderr
        seen = anyio.run(_scenario, tmp, errlog)
    seen["timings"]["total"] = time.monotonic() - t
    seen["tmp"] = tmp
    return seen


def text(ctr) -> str:
    assert [c.type for c in ctr.content] == ["text"]
    return ctr.content[0].text


def test_proxy_stderr_has_no_surprises(run):
    err = (run["tmp"] / "proxy.stderr").read_text()
    assert "closed the connection" not in err, err[-4000:]
    assert "toolbound proxy: ERROR" not in err, err[-4000:]


# --- listing -------------------------------------------------------------------------------------

def test_listing_passes_through_with_pagination_and_the_fetch_tool(run):
    page1, page2 = run["pages"]
    names1 = [t.name for t in page1.tools]
    assert names1 == ["clean", "get_ticket", "failing", "big", "toolbound_fetch_more"]
    assert page1.next_cursor is not None and page2 is not None
    assert [t.name for t in page2.tools] == ["slow", "read_note", "crash", "mismatch"]
    assert page2.next_cursor is None
    clean = page1.tools[0]
    assert clean.description == "A clean record."
    assert clean.input_schema["properties"]["id"] == {"type": "integer", "minimum": 1}
    assert clean.output_schema is None  # results are toolbound's rendering now
    fetch = page1.tools[-1]
    assert set(fetch.input_schema["properties"]) == {"handle", "page"}
    assert run["init"].server_info.name == "upstream-test"


# --- results -------------------------------------------------------------------------------------

def test_clean_result_is_unchanged_in_content(run):
    ctr = run["clean"]
    assert ctr.is_error is False
    body = text(ctr)
    assert json.dumps(CLEAN, ensure_ascii=False, separators=(", ", ": ")) in body
    assert "trust=trusted" in body
    assert ctr.structured_content == CLEAN  # trusted: structured content is safe to send
    assert ctr.meta["toolbound"]["trusted"] is True


def test_injected_ticket_body_is_quarantined(run):
    ctr = run["ticket"]
    assert ctr.is_error is False
    body = text(ctr)
    assert '"ticket": 91' in body and '"body": "<<Q1>>"' in body
    assert "<<Q1 untrusted /body" in body and "UNTRUSTED" in body
    assert ctr.structured_content is None  # it would bypass the quarantine
    assert ctr.meta["toolbound"]["trusted"] is False


@pytest.mark.xfail(DETECT_NOOP, reason="detection not wired into sanitize yet", strict=False)
def test_injected_ticket_has_a_finding_and_a_log_line(run):
    meta = run["ticket"].meta["toolbound"]
    assert meta["findings"] and any(f["path"] == "/body" for f in meta["findings"])
    assert "findings:" in text(run["ticket"])
    lines = [json.loads(x) for x in (run["tmp"] / "findings.jsonl").read_text().splitlines()]
    mine = [x for x in lines if x["tool"] == "get_ticket"]
    assert len(mine) == 1
    line = mine[0]
    assert line["call_id"] == meta["provenance"]["call_id"]
    assert line["payload_sha256"] == meta["provenance"]["payload_sha256"]
    assert line["timestamp"] and line["findings"]
    raw = (run["tmp"] / "findings.jsonl").read_text()
    assert "attacker@evil.test" not in raw and "Ignore prior" not in raw  # never the payload
    assert all(x["findings"] for x in lines)  # only calls with findings are logged
    assert not any(x["tool"] == "clean" for x in lines)


def test_failing_tool_is_an_actionable_error_without_its_secret(run):
    ctr = run["failing"]
    assert ctr.is_error is True
    body = text(ctr)
    assert "code=tool_failed" in body and "Next:" in body
    assert "hunter2" not in body and "hunter2" not in json.dumps(ctr.meta)


def test_big_result_fits_the_budget_and_pages_are_fetchable(run):
    from toolbound._tokens import count_tokens

    ctr = run["big"]
    assert ctr.is_error is False
    body = text(ctr)
    assert count_tokens(body) <= BUDGET
    meta = ctr.meta["toolbound"]
    assert meta["handle"] and meta["pages"] >= 2
    assert meta["handle"] in body and "toolbound_fetch_more" in body
    assert ctr.structured_content is None
    page = run["page2"]
    assert page.is_error is False
    assert "page 2 of" in text(page)
    assert count_tokens(text(page)) <= BUDGET
    assert run["timings"]["big"] < 20


def test_fetch_more_errors_are_results(run):
    assert run["bad_handle"].is_error is True
    assert "code=not_found" in text(run["bad_handle"])
    assert run["bad_fetch_args"].is_error is True
    assert "code=invalid_arguments" in text(run["bad_fetch_args"])


def test_invalid_arguments_never_reach_upstream(run):
    ctr = run["invalid"]
    assert ctr.is_error is True
    body = text(ctr)
    assert "code=invalid_arguments" in body and "/id" in body
    esc = run["escape"]
    assert esc.is_error is True and "code=path_escapes_workspace" in text(esc)
    calls = _upstream_calls(run["tmp"])
    assert {"name": "clean", "arguments": {"id": "seven"}} not in calls
    assert not any(c.get("name") == "read_note" and c["arguments"]["path"].startswith("..")
                   for c in calls)
    # a valid path inside the workspace goes through
    assert run["note"].is_error is False
    assert {"name": "read_note", "arguments": {"path": "notes/a.txt"}} in calls


def test_unknown_tool_is_a_protocol_error(run):
    exc = run["unknown"]
    assert isinstance(exc, MCPError)
    assert "no_such_tool" in exc.message


def test_cancellation_reaches_upstream_and_the_proxy_stays_up(run):
    assert run["after_cancel"].is_error is False
    cancelled = [c for c in _upstream_calls(run["tmp"]) if c.get("cancelled")]
    assert cancelled, "the upstream server never saw the cancellation"


def test_progress_is_relayed_without_upstream_text(run):
    assert run["progress"] == [(1, 30, None)]


def test_upstream_output_schema_is_enforced(run):
    ctr = run["mismatch"]
    assert ctr.is_error is True
    assert "code=invalid_output" in text(ctr) and "three" not in text(ctr)


def test_timeout_is_an_error_result(run):
    ctr = run["slow"]
    assert ctr.is_error is True
    body = text(ctr)
    assert "code=timeout" in body and "retryable=true" in body
    assert TIMEOUT - 0.5 <= run["timings"]["slow"] < TIMEOUT + 10
    assert run["after_timeout"].is_error is False


# --- an upstream crash ---------------------------------------------------------------------------

async def _crash(tmp: Path) -> tuple:
    async with stdio_client(_params(tmp)) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        with anyio.fail_after(20):
            crashed = await s.call_tool("crash", {})
            after = await s.call_tool("clean", {"id": 1})
    return crashed, after


def test_upstream_crash_becomes_an_error_result(tmp_path):
    (tmp_path / "policy.toml").write_text(POLICY)
    crashed, after = anyio.run(_crash, tmp_path)
    for ctr in (crashed, after):
        assert ctr.is_error is True
        body = text(ctr)
        assert "code=tool_failed" in body and "restart" in body


# --- command-line errors -------------------------------------------------------------------------

def test_bad_policy_exits_2(run_cli, tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text("[tools.read_note.args]\nworkspace = 'ws'\npath_field = ['/path']\n")
    r = run_cli("proxy", "--policy", str(p), "--", sys.executable, str(UPSTREAM))
    assert r.returncode == 2
    assert "path_field" in r.stderr and "did you mean 'path_fields'" in r.stderr
    r = run_cli("proxy", "--policy", str(tmp_path / "missing.toml"), "--", sys.executable, str(UPSTREAM))
    assert r.returncode == 2 and "missing.toml" in r.stderr


def test_missing_command_exits_2(run_cli, tmp_path):
    p = tmp_path / "policy.toml"
    p.write_text(POLICY)
    r = run_cli("proxy", "--policy", str(p))
    assert r.returncode == 2 and "after '--'" in r.stderr
    r = run_cli("proxy", "--policy", str(p), "--", "no-such-mcp-server-xyz")
    assert r.returncode == 2 and "not found" in r.stderr


def test_upstream_that_is_not_an_mcp_server_exits_1(run_cli, tmp_path):
    p = tmp_path / "policy.toml"
    p.write_text(POLICY)
    r = run_cli("proxy", "--policy", str(p), "--timeout", "5", "--", sys.executable, "-c", "pass")
    assert r.returncode == 1 and "upstream MCP server" in r.stderr


# --- the policy's args table ---------------------------------------------------------------------

def test_args_table_builds_checks(tmp_path):
    from toolbound._policyfile import policy_from_dict

    pol = policy_from_dict({"tools": {"write": {"args": {
        "workspace": "ws", "path_fields": ["/path", "/files/*/path"],
        "allowed_values": {"mode": ["read", "append"]}, "max_length": {"note": 5},
        "max_items": {"/files": 2}}}}}, file=str(tmp_path / "p.toml"))
    eff = pol.for_tool("write")
    checks = eff.args.checks(tmp_path)
    assert [c.__name__ for c in checks] == ["within_workspace", "allowed_values", "max_length",
                                            "max_items"]
    schema = {"type": "object"}
    ok = toolbound.validate_args({"path": "a.txt", "mode": "read"}, schema, checks=checks)
    assert ok == {"path": "a.txt", "mode": "read"}
    for bad, code in [({"path": "../x"}, "path_escapes_workspace"),
                      ({"files": [{"path": "/etc/passwd"}]}, "path_escapes_workspace"),
                      ({"mode": "delete"}, "invalid_arguments"),
                      ({"note": "too long"}, "invalid_arguments"),
                      ({"files": [{}, {}, {}]}, "invalid_arguments")]:
        f = toolbound.validate_args(bad, schema, checks=checks)
        assert isinstance(f, toolbound.Failure) and f.error.code == code, bad
    assert pol.for_tool("other").args is None


def test_args_table_errors_name_the_key(tmp_path):
    from toolbound._policyfile import policy_from_dict

    cases = [({"workspace": "ws"}, "path_fields"),
             ({"path_fields": ["/p"]}, "workspace"),
             ({"workspace": "ws", "path_fields": []}, "at least one"),
             ({"max_length": {"note": -1}}, "0 or more"),
             ({"allowed_values": {"mode": []}}, "at least one"),
             ({"workspace": "ws", "path_fields": [""]}, "must not be empty"),
             ({"max_lenght": {}}, "did you mean 'max_length'")]
    for table, needle in cases:
        with pytest.raises(toolbound.PolicyError) as ei:
            policy_from_dict({"tools": {"t": {"args": table}}}, file="p.toml")
        msg = str(ei.value)
        assert msg.startswith("p.toml: tools.t.args") and needle in msg, msg
