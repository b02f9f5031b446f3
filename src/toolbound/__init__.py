"""toolbound: guard the boundary where tool results re-enter a language model's context.

A type-valid result is not a trusted result. ``sanitize()`` turns any tool output into one typed
envelope with provenance, quarantined external content, findings and a budgeted rendering for
the model; ``SanitizedResult.trusted`` is False whenever an outside party could have written any
part of it.

Heavy parts (rule packs, tokenizers, the HTML cleaner) load lazily, on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolbound._version import __version__

# Public name -> module that defines it. Imported on first attribute access (PEP 562).
_EXPORTS: dict[str, str] = {
    "sanitize": "toolbound._pipeline",
    "fetch_more": "toolbound._fetch",
    "SanitizedResult": "toolbound._result",
    "Span": "toolbound._context",
    "Envelope": "toolbound._envelope",
    "Success": "toolbound._envelope",
    "Failure": "toolbound._envelope",
    "ErrorInfo": "toolbound._envelope",
    "envelope_json_schema": "toolbound._envelope",
    "ERROR_CODES": "toolbound._errors",
    "CATALOGUE": "toolbound._errors",
    "ToolboundError": "toolbound._errors",
    "ToolError": "toolbound._errors",
    "PolicyError": "toolbound._errors",
    "OptionError": "toolbound._errors",
    "EncodingUnavailableError": "toolbound._errors",
    "InvalidSchemaError": "toolbound._schemacheck",
    "Finding": "toolbound._types",
    "Detection": "toolbound._types",
    "Provenance": "toolbound._provenance",
    "Policy": "toolbound._policy",
    "ToolPolicy": "toolbound._policy",
    "load_policy": "toolbound._policyfile",
    "system_prompt_note": "toolbound._notes",
    "validate_args": "toolbound._args",
    "tool": "toolbound._tool",
    "detect": "toolbound._detect.api",
    "scan_strings": "toolbound._detect.api",
    "default_threshold": "toolbound._detect.api",
    "use_classifier": "toolbound._detect.api",
    "OnnxClassifier": "toolbound._detect.classifier",
    "ClassifierError": "toolbound._detect.classifier",
}

# Public submodules reachable as attributes (``toolbound.checks.within_workspace``).
_SUBMODULES = ("checks",)

__all__ = sorted([*_EXPORTS, *_SUBMODULES, "__version__"])


def __getattr__(name: str) -> Any:
    import importlib

    if name in _SUBMODULES:
        return importlib.import_module(f"toolbound.{name}")
    mod = _EXPORTS.get(name)
    if mod is None:
        raise AttributeError(f"module 'toolbound' has no attribute {name!r}")
    value = getattr(importlib.import_module(mod), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # pragma: no cover
    from toolbound._context import Span
    from toolbound._envelope import Envelope, ErrorInfo, Failure, Success, envelope_json_schema
    from toolbound._errors import (CATALOGUE, ERROR_CODES, EncodingUnavailableError, OptionError,
                                   PolicyError, ToolboundError, ToolError)
    from toolbound._fetch import fetch_more
    from toolbound._notes import system_prompt_note
    from toolbound._pipeline import sanitize
    from toolbound._policy import Policy, ToolPolicy
    from toolbound._policyfile import load_policy
    from toolbound._provenance import Provenance
    from toolbound._result import SanitizedResult
    from toolbound._schemacheck import InvalidSchemaError
    from toolbound._types import Detection, Finding
    from toolbound._args import validate_args
    from toolbound._tool import tool
    from toolbound._detect.api import default_threshold, detect, scan_strings, use_classifier
    from toolbound._detect.classifier import ClassifierError, OnnxClassifier
    from toolbound import checks
