"""``toolbound check-args`` end to end, through a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "due": {"type": "string", "format": "date"}},
    "required": ["path"],
    "additionalProperties": False,
}


def run(*argv: str, stdin: bytes | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return subprocess.run([sys.executable, "-m", "toolbound", "check-args", *argv], input=stdin,
                          capture_output=True, env=env, cwd=cwd or ROOT, timeout=60)


@pytest.fixture()
def files(tmp_path: Path) -> Path:
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    ws = tmp_path / "ws"
    (ws / "reports").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, ws / "escape")
    return tmp_path


def envelope(proc: subprocess.CompletedProcess[bytes]) -> dict:
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout)


def test_valid_arguments_print_a_success_envelope(files: Path) -> None:
    (files / "args.json").write_text('{"path": "reports/q1.csv", "due": "2026-05-18"}')
    out = envelope(run("--schema", str(files / "schema.json"), str(files / "args.json")))
    assert out == {"ok": True, "data": {"path": "reports/q1.csv", "due": "2026-05-18"}}


def test_invalid_arguments_print_the_error_envelope_and_exit_0(files: Path) -> None:
    out = envelope(run("--schema", str(files / "schema.json"), "-", stdin=b'{"due": "05/18/2026"}'))
    assert out["ok"] is False
    assert out["error"]["code"] == "invalid_arguments"
    assert "missing required field 'path' at /" in out["error"]["message"]
    assert "invalid date at /due" in out["error"]["message"]
    assert "ISO-8601 like 2026-05-18" in out["error"]["message"]


def test_stdin_is_the_default(files: Path) -> None:
    out = envelope(run("--schema", str(files / "schema.json"), stdin=b'{"path": "a"}'))
    assert out == {"ok": True, "data": {"path": "a"}}


@pytest.mark.parametrize("args", ['{"path": "../../etc/passwd"}', '{"path": "escape/x"}',
                                  '{"path": "%2e%2e%2f%2e%2e%2fetc"}', '{"path": "/etc/passwd"}'])
def test_workspace_escapes(files: Path, args: str) -> None:
    out = envelope(run("--schema", str(files / "schema.json"), "--workspace", str(files / "ws"), "-",
                       stdin=args.encode()))
    assert out["error"]["code"] == "path_escapes_workspace"
    assert "field 'path'" in out["error"]["message"]


def test_named_fields(files: Path) -> None:
    schema = {"type": "object", "properties": {"src": {"type": "string"}, "dst": {"type": "string"}}}
    (files / "copy.json").write_text(json.dumps(schema))
    cmd = ("--schema", str(files / "copy.json"), "--workspace", str(files / "ws"), "--field", "src",
           "--field", "/dst", "-")
    assert envelope(run(*cmd, stdin=b'{"src": "a", "dst": "reports/b"}'))["ok"] is True
    out = envelope(run(*cmd, stdin=b'{"src": "a", "dst": "../b"}'))
    assert out["error"]["code"] == "path_escapes_workspace"
    assert "field 'dst'" in out["error"]["message"]


def test_unreadable_arguments_still_give_an_envelope(files: Path) -> None:
    for raw in (b"{broken", b"\xff\xfe", b"[1]", b""):
        out = envelope(run("--schema", str(files / "schema.json"), "-", stdin=raw))
        assert out["ok"] is False and out["error"]["code"] == "invalid_arguments"


@pytest.mark.parametrize("setup,argv,needle", [
    (None, ["--schema", "{d}/missing.json", "-"], "no such file"),
    ("not json", ["--schema", "{d}/bad.json", "-"], "not valid JSON"),
    ('{"type": "strng"}', ["--schema", "{d}/bad.json", "-"], "invalid JSON Schema"),
    ('{"type": "array"}', ["--schema", "{d}/bad.json", "-"], "must describe an object"),
    (None, ["--schema", "{d}/schema.json", "--field", "path", "-"], "--workspace"),
    (None, ["--schema", "{d}/schema.json", "--workspace", "{d}/nope", "-"], "not a directory"),
    (None, ["--schema", "{d}/schema.json", "{d}/missing-args.json"], "no such file"),
    (None, ["--schema", "-", "-"], "standard input"),
])
def test_usage_errors_exit_2(files: Path, setup: str | None, argv: list[str], needle: str) -> None:
    if setup is not None:
        (files / "bad.json").write_text(setup)
    proc = run(*[a.format(d=files) for a in argv], stdin=b"{}")
    assert proc.returncode == 2
    assert needle in proc.stderr.decode()
    assert proc.stdout == b""


def test_missing_schema_option_exits_2() -> None:
    proc = run("-", stdin=b"{}")
    assert proc.returncode == 2
    assert "--schema" in proc.stderr.decode()


def test_help_lists_the_command() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.run([sys.executable, "-m", "toolbound", "--help"], capture_output=True, env=env,
                          timeout=60)
    assert proc.returncode == 0
    assert b"check-args" in proc.stdout
