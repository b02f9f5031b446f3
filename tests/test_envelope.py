import json

import jsonschema
import pytest
from pydantic import ValidationError

import toolbound
from toolbound._envelope import envelope_adapter, failure, parse_envelope
from toolbound._errors import CATALOGUE, ERROR_CODES, message_for


def test_success_round_trip():
    env = parse_envelope({"ok": True, "data": {"a": [1, 2.5, None, "x", True]}})
    assert isinstance(env, toolbound.Success)
    assert parse_envelope(json.loads(env.model_dump_json())) == env


def test_failure_round_trip():
    env = failure("not_found", "no ticket with id 91")
    again = parse_envelope(json.loads(env.model_dump_json()))
    assert again == env and again.ok is False and again.error.code == "not_found"


@pytest.mark.parametrize("bad", [
    {"ok": True, "error": {"code": "tool_failed", "message": "x"}},
    {"ok": False, "data": 1},
    {"ok": False, "error": {"code": "not_a_code", "message": "x"}},
    {"ok": False, "error": {"code": "tool_failed", "message": ""}},
    {"ok": "yes", "data": 1},
])
def test_envelope_rejects_malformed(bad):
    with pytest.raises(ValidationError):
        parse_envelope(bad)


def test_schema_validates_real_envelopes():
    schema = toolbound.envelope_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    v = jsonschema.Draft202012Validator(schema)
    v.validate({"ok": True, "data": [1, {"x": None}]})
    v.validate(failure("timeout").model_dump(mode="json"))
    assert not v.is_valid({"ok": False, "error": {"code": "nope", "message": "m", "retryable": False}})
    assert not v.is_valid({"ok": True, "data": 1, "extra": 2})


def test_catalogue_is_complete_and_actionable():
    required = {"invalid_arguments", "path_escapes_workspace", "not_authorized", "not_found",
                "invalid_output", "result_too_large", "untrusted_content_blocked", "tool_failed",
                "timeout", "rate_limited", "internal_error"}
    assert required <= set(ERROR_CODES) == set(CATALOGUE)
    for code, entry in CATALOGUE.items():
        assert code == code.lower() and " " not in code
        msg = message_for(code)
        assert "Next:" in msg and len(msg) > 40, code
    assert CATALOGUE["timeout"].retryable and CATALOGUE["rate_limited"].retryable
    assert not CATALOGUE["invalid_arguments"].retryable


def test_message_with_detail_keeps_example():
    msg = message_for("invalid_arguments", "invalid date at /due; expected ISO-8601 like 2026-05-18")
    assert msg.startswith("invalid date at /due; expected ISO-8601 like 2026-05-18")


def test_cli_schema_envelope(run_cli):
    p = run_cli("schema", "envelope")
    assert p.returncode == 0
    schema = json.loads(p.stdout)
    assert schema == toolbound.envelope_json_schema()


def test_adapter_is_shared():
    assert envelope_adapter() is envelope_adapter()
