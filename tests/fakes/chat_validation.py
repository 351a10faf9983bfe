"""Strict checks of a chat request, the way a strict OpenAI-compatible provider rejects it.

``find_violations(body)`` returns every problem found; the fake server answers the first one
with ``400 invalid_request_error`` (OpenAI reports one problem per request).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

ROLES = {"system", "developer", "user", "assistant", "tool", "function"}
LEADING_ROLES = {"system", "developer"}
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@dataclass(frozen=True)
class Violation:
    """One reason a strict provider would reject the request."""

    message: str
    param: str | None = None


def find_violations(body: Any, *, plain: bool = False) -> list[Violation]:
    """All well-formedness problems of a ``/v1/chat/completions`` body (empty if fine).

    ``plain=True`` also rejects what the pickiest servers reject: a ``name`` field on any
    message, and text-only content sent as a list of parts instead of a string.
    """
    if not isinstance(body, dict):
        return [Violation("The request body must be a JSON object.")]
    found: list[Violation] = []
    if not isinstance(body.get("model"), str) or not body["model"]:
        found.append(Violation("you must provide a model parameter", "model"))
    if "stream" in body and not isinstance(body["stream"], bool):
        found.append(Violation("'stream' must be a boolean.", "stream"))
    if body.get("stream_options") is not None and not body.get("stream"):
        found.append(
            Violation(
                "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
                "stream_options",
            )
        )
    tool_names = _check_tools(body.get("tools"), found)
    _check_tool_choice(body.get("tool_choice"), tool_names, found)
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        found.append(Violation(f"{json.dumps(messages)} is too short - 'messages'", "messages"))
        return found
    _check_messages(messages, found)
    if plain:
        _check_plain(messages, found)
    return found


def _check_plain(messages: list[Any], found: list[Violation]) -> None:
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict):
            continue
        if "name" in msg:
            found.append(Violation("Unrecognized field 'name' in message.", f"messages.[{i}].name"))
        content = msg.get("content")
        if isinstance(content, list) and all(
            isinstance(p, dict) and p.get("type") == "text" for p in content
        ):
            found.append(
                Violation(
                    f"Invalid type for 'messages.[{i}].content': expected a string.",
                    f"messages.[{i}].content",
                )
            )


def _check_tools(tools: Any, found: list[Violation]) -> set[str]:
    names: set[str] = set()
    if tools is None:
        return names
    if not isinstance(tools, list) or not tools:
        found.append(Violation("'tools' must be a non-empty array when given.", "tools"))
        return names
    for i, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) else None
        if (
            not isinstance(tool, dict)
            or tool.get("type") != "function"
            or not isinstance(function, dict)
        ):
            found.append(
                Violation("Each tool must be {type: function, function: {...}}.", f"tools[{i}]")
            )
            continue
        name = function.get("name")
        if not isinstance(name, str) or not TOOL_NAME.match(name):
            found.append(
                Violation(
                    f"Invalid 'tools[{i}].function.name': string does not match pattern. "
                    "Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
                    f"tools[{i}].function.name",
                )
            )
        elif name in names:
            found.append(Violation(f"Duplicate tool name {name!r}.", f"tools[{i}].function.name"))
        else:
            names.add(name)
        params = function.get("parameters")
        if params is not None and not isinstance(params, dict):
            found.append(
                Violation(
                    "Tool parameters must be a JSON schema object.",
                    f"tools[{i}].function.parameters",
                )
            )
    return names


def _check_tool_choice(choice: Any, names: set[str], found: list[Violation]) -> None:
    if isinstance(choice, dict):
        name = (choice.get("function") or {}).get("name")
        if name not in names:
            found.append(Violation(f"tool_choice names an unknown tool {name!r}.", "tool_choice"))
    elif choice is not None and choice not in {"none", "auto", "required"}:
        found.append(Violation(f"Invalid value for 'tool_choice': {choice!r}.", "tool_choice"))


def _content_ok(content: Any) -> bool:
    if isinstance(content, str):
        return True
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(p, dict) and isinstance(p.get("type"), str) for p in content)
    )


def _check_messages(messages: list[Any], found: list[Violation]) -> None:
    pending: dict[str, int] = {}  # unanswered tool_call id -> index of its assistant message
    answered: set[str] = set()
    seen_other = False
    for i, msg in enumerate(messages):
        where = f"messages.[{i}]"
        if not isinstance(msg, dict) or msg.get("role") not in ROLES:
            role = msg.get("role") if isinstance(msg, dict) else None
            found.append(
                Violation(
                    f"Invalid value: {role!r}. Supported values are: {', '.join(sorted(ROLES))}.",
                    f"{where}.role",
                )
            )
            continue
        role = msg["role"]
        if role != "tool" and pending:
            found.append(_unanswered(pending))
            pending.clear()
        if role in LEADING_ROLES:
            if seen_other:
                found.append(Violation("System message must be at the beginning.", f"{where}.role"))
        else:
            seen_other = True
        if role == "assistant":
            _check_assistant(msg, where, pending, answered, found)
        elif role == "tool":
            _check_tool_result(msg, where, pending, answered, found)
        elif not _content_ok(msg.get("content")):
            found.append(
                Violation(f"Missing required parameter: '{where}.content'.", f"{where}.content")
            )
    if pending:
        found.append(_unanswered(pending))


def _unanswered(pending: dict[str, int]) -> Violation:
    first = min(pending.values())
    return Violation(
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        + ", ".join(sorted(pending)),
        f"messages.[{first}].role",
    )


def _check_assistant(
    msg: dict[str, Any],
    where: str,
    pending: dict[str, int],
    answered: set[str],
    found: list[Violation],
) -> None:
    calls = msg.get("tool_calls")
    content = msg.get("content")
    if not calls and (content is None or not _content_ok(content)):
        found.append(
            Violation(
                f"Invalid value for '{where}.content': expected a string, got null.",
                f"{where}.content",
            )
        )
    if calls is None:
        return
    if not isinstance(calls, list) or not calls:
        found.append(Violation("'tool_calls' must be a non-empty array.", f"{where}.tool_calls"))
        return
    index = int(where.split("[")[1].rstrip("]"))
    for j, call in enumerate(calls):
        at = f"{where}.tool_calls.[{j}]"
        function = call.get("function") if isinstance(call, dict) else None
        call_id = call.get("id") if isinstance(call, dict) else None
        if not isinstance(call_id, str) or not call_id:
            found.append(Violation(f"Missing required parameter: '{at}.id'.", f"{at}.id"))
            continue
        if call_id in pending or call_id in answered:
            found.append(Violation(f"Duplicate tool_call id {call_id!r}.", f"{at}.id"))
        pending[call_id] = index
        if call.get("type") != "function" or not isinstance(function, dict):
            found.append(Violation(f"Missing required parameter: '{at}.function'.", at))
            continue
        if not isinstance(function.get("name"), str) or not function["name"]:
            found.append(
                Violation(
                    f"Missing required parameter: '{at}.function.name'.", f"{at}.function.name"
                )
            )
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            found.append(
                Violation(
                    f"Invalid type for '{at}.function.arguments': expected a string.",
                    f"{at}.function.arguments",
                )
            )
            continue
        try:
            json.loads(arguments)
        except ValueError:
            found.append(
                Violation(
                    f"'{at}.function.arguments' is not valid JSON: {arguments[:80]!r}",
                    f"{at}.function.arguments",
                )
            )


def _check_tool_result(
    msg: dict[str, Any],
    where: str,
    pending: dict[str, int],
    answered: set[str],
    found: list[Violation],
) -> None:
    call_id = msg.get("tool_call_id")
    if call_id not in pending:
        found.append(
            Violation(
                "Invalid parameter: messages with role 'tool' must be a response "
                "to a preceeding message with 'tool_calls'.",
                f"{where}.role",
            )
        )
    else:
        del pending[call_id]
        answered.add(call_id)
    if not _content_ok(msg.get("content")):
        found.append(
            Violation(f"Missing required parameter: '{where}.content'.", f"{where}.content")
        )
