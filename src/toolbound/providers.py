"""Tool-result messages for model provider APIs, all carrying the same text: ``result.to_model()``.

::

    from toolbound.providers import (to_anthropic_tool_result, to_openai_function_call_output,
                                     to_openai_tool_message)

    result = toolbound.sanitize(raw, tool="get_ticket", policy="policy.toml")
    messages.append(to_openai_tool_message(result, call.id))              # Chat Completions
    input_items.append(to_openai_function_call_output(result, item.call_id))  # Responses API
    content.append(to_anthropic_tool_result(result, block.id))            # Anthropic Messages

The model sees exactly one rendering everywhere (header, untrusted notice, findings, quarantined
spans, budget), so a policy behaves the same whichever provider runs the agent. The helpers build
plain dicts; they import no provider SDK. Only the Anthropic format has an error flag
(``is_error``); the OpenAI formats carry the error in the text, whose header says
``status=error code=...``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from toolbound._result import SanitizedResult

__all__ = ["to_anthropic_tool_result", "to_openai_function_call_output", "to_openai_tool_message"]


def _check_id(name: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError(f"{name} must be the non-empty id string of the model's tool call, "
                        f"not {type(value).__name__ if not isinstance(value, str) else 'an empty string'}")
    return value


def to_openai_tool_message(result: SanitizedResult, tool_call_id: str) -> dict[str, Any]:
    """A Chat Completions ``tool`` message answering the tool call ``tool_call_id``.

    Returns:
        ``{"role": "tool", "tool_call_id": ..., "content": result.to_model()}``
    """
    return {"role": "tool", "tool_call_id": _check_id("tool_call_id", tool_call_id),
            "content": result.to_model()}


def to_openai_function_call_output(result: SanitizedResult, call_id: str) -> dict[str, Any]:
    """A Responses API ``function_call_output`` input item answering the call ``call_id``.

    Returns:
        ``{"type": "function_call_output", "call_id": ..., "output": result.to_model()}``
    """
    return {"type": "function_call_output", "call_id": _check_id("call_id", call_id),
            "output": result.to_model()}


def to_anthropic_tool_result(result: SanitizedResult, tool_use_id: str) -> dict[str, Any]:
    """An Anthropic Messages ``tool_result`` content block answering the ``tool_use`` block.

    Returns:
        ``{"type": "tool_result", "tool_use_id": ..., "content": [{"type": "text", "text":
        result.to_model()}], "is_error": not result.ok}``
    """
    return {"type": "tool_result", "tool_use_id": _check_id("tool_use_id", tool_use_id),
            "content": [{"type": "text", "text": result.to_model()}],
            "is_error": not result.ok}
