import subprocess
import sys

import toolbound
from toolbound._stages import act, budget, coerce, detect, normalize, quarantine, render, validate

EXPECTED_PUBLIC = {
    "CATALOGUE", "Detection", "ERROR_CODES", "EncodingUnavailableError", "Envelope", "ErrorInfo",
    "Failure", "Finding", "InvalidSchemaError", "OptionError", "Policy", "PolicyError", "Provenance",
    "SanitizedResult", "Span", "Success", "ToolError", "ToolPolicy", "ToolboundError", "__version__",
    "envelope_json_schema", "load_policy", "sanitize",
}


def test_public_names_are_pinned():
    assert EXPECTED_PUBLIC <= set(toolbound.__all__)
    for name in toolbound.__all__:
        assert getattr(toolbound, name) is not None, name


def test_misuse_exceptions_subclass_builtins():
    assert issubclass(toolbound.PolicyError, ValueError)
    assert issubclass(toolbound.OptionError, TypeError)
    assert issubclass(toolbound.EncodingUnavailableError, RuntimeError)


def test_stage_order_and_noops_are_named():
    from toolbound._pipeline import STAGES

    assert STAGES == (coerce, validate, normalize, quarantine, detect, act, budget, render)
    # Stages not built yet must say so (NOOP = True) instead of pretending to work.
    for stage in STAGES:
        if getattr(stage, "NOOP", False):
            assert "no-op" in (stage.__doc__ or ""), stage.__name__


def test_import_is_light():
    code = ("import sys, toolbound; r = toolbound.sanitize({'a': 1}); "
            "heavy = [m for m in ('tiktoken', 'bleach', 'jsonschema', 'mcp', 'redis') if m in sys.modules]; "
            "print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
