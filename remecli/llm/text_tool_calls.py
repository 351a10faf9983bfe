"""Tool calls that small models write as text, turned into real tool calls.

Small local models (Qwen2.5 1.5B on llama.cpp, see the local-model note) often write a tool call
into the answer's text instead of the API's `tool_calls`, so the server returns none. The forms:

- a ```json (or bare ```) fenced block `{"name": …, "arguments": {…}}` (or `"parameters"`);
- the same object bare, as the last thing in the message;
- `<tool_call>{…}</tool_call>` tags (Qwen / Hermes templates), one or several in a row;
- `<function=name>{…}</function>`, or with `<parameter=key>value</parameter>` inside.

Only a call that ends the message and names an offered tool counts, so an answer that merely
shows some JSON is left alone. Malformed JSON (`;` between fields, trailing commas) is repaired
by the one JSON reader (`remecli.llm.json_answer`).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncIterator, Collection, Iterable
from dataclasses import dataclass
from typing import Any

from remecli.llm.json_answer import json_from_answer, json_object

_CALL_KEYS = {"name", "arguments", "parameters", "id", "type"}
_TRAILING_TOOL_TAGS = re.compile(r"(?:<tool_call>\s*.*?\s*(?:</tool_call>|\Z)\s*)+\Z", re.DOTALL)
_TOOL_TAG = re.compile(r"<tool_call>\s*(?P<body>.*?)\s*(?:</tool_call>|\Z)", re.DOTALL)
_TRAILING_FUNCTIONS = re.compile(
    r"(?:<function=[\w.-]+>.*?(?:</function>|\Z)\s*)+(?:</tool_call>\s*)?\Z", re.DOTALL
)
_FUNCTION_TAG = re.compile(
    r"<function=(?P<name>[\w.-]+)>(?P<body>.*?)(?:</function>|\Z)", re.DOTALL
)
_PARAMETER_TAG = re.compile(
    r"<parameter=(?P<key>[\w.-]+)>\s*?\n?(?P<value>.*?)\n?\s*?</parameter>", re.DOTALL
)


@dataclass(frozen=True)
class TextToolCall:
    """One tool call read from text: the tool's name and its arguments."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class FoundCalls:
    """The calls at the end of a message and the prose before them."""

    prose: str
    calls: list[TextToolCall]


def find_text_tool_calls(text: str, offered: Collection[str]) -> FoundCalls | None:
    """The tool calls that end `text`, naming only `offered` tools; None when there are none.

    Every call of a trailing group must name an offered tool, else nothing is taken (an answer
    that shows an example is not run).
    """
    body = text.rstrip()
    if not body or not offered:
        return None
    for reader in (_tagged_calls, _function_calls, _fenced_calls, _bare_call):
        found = reader(body, offered)
        if found is not None:
            return found
    return None


def offered_tool_names(tools: Iterable[dict[str, Any]] | None) -> set[str]:
    """The function names in an OpenAI `tools` list (or agentscope's flat schemas)."""
    names: set[str] = set()
    for tool in tools or []:
        function = tool.get("function", tool)
        name = function.get("name") if isinstance(function, dict) else None
        if isinstance(name, str):
            names.add(name)
    return names


def _tagged_calls(body: str, offered: Collection[str]) -> FoundCalls | None:
    match = _TRAILING_TOOL_TAGS.search(body)
    if match is None or "<function=" in match.group(0) or not _only(_TOOL_TAG, match.group(0)):
        return None
    calls = [_call_from_json(m.group("body"), offered) for m in _TOOL_TAG.finditer(match.group(0))]
    return _found(body[: match.start()], calls)


def _function_calls(body: str, offered: Collection[str]) -> FoundCalls | None:
    match = _TRAILING_FUNCTIONS.search(body)
    if match is None or not _only(_FUNCTION_TAG, match.group(0).replace("</tool_call>", "")):
        return None
    prose = re.sub(r"<tool_call>\s*\Z", "", body[: match.start()].rstrip())
    calls: list[TextToolCall | None] = []
    for tag in _FUNCTION_TAG.finditer(match.group(0)):
        name, inner = tag.group("name"), tag.group("body")
        params = {
            p.group("key"): _parameter_value(p.group("value"))
            for p in _PARAMETER_TAG.finditer(inner)
        }
        if not params and inner.strip():
            params = json_object(inner) or {}
            if not params:
                calls.append(None)
                continue
        calls.append(TextToolCall(name, params) if name in offered else None)
    return _found(prose, calls)


def _fenced_calls(body: str, offered: Collection[str]) -> FoundCalls | None:
    if not body.endswith("```"):
        return None
    closing = len(body) - 3
    opening = body.rfind("```", 0, closing)
    if opening < 0:
        return None
    if not _call_fence(body[opening + 3 : closing]):
        return None
    inner = re.sub(r"\A(?:json|JSON|tool_call)?[ \t]*\n?", "", body[opening + 3 : closing])
    return _calls_in_json(body[:opening], inner, offered)


_CALL_FENCE_INFO = ("", "json", "tool_call")


def _call_fence(after_fence: str) -> bool:
    """Whether a fence whose text after the ``` is `after_fence` may hold a call: no info string
    or json / tool_call (also while the info string is still arriving), or JSON right away."""
    first_line, newline, _rest = after_fence.partition("\n")
    info = first_line.strip()
    if info.startswith(("{", "[")):
        return True
    if not newline:  # the info string may still be arriving
        return any(known.startswith(info.lower()) for known in _CALL_FENCE_INFO)
    return info.lower() in _CALL_FENCE_INFO


def _bare_call(body: str, offered: Collection[str]) -> FoundCalls | None:
    if not body.endswith(("}", "]")):
        return None
    for start in (m.start() for m in re.finditer(r"(?:\A|\n)\s*[\[{]", body)):
        opening = start + len(body[start:]) - len(body[start:].lstrip())
        found = _calls_in_json(body[:opening], body[opening:], offered)
        if found is not None:
            return found
    return None


def _calls_in_json(prose: str, text: str, offered: Collection[str]) -> FoundCalls | None:
    value = json_from_answer(text)
    items: list[Any] = value if isinstance(value, list) else [value]
    objects = [item for item in items if isinstance(item, dict)]
    if not objects or len(objects) != len(items):
        return None
    return _found(prose, [_call_from_value(item, offered) for item in objects])


def _call_from_json(text: str, offered: Collection[str]) -> TextToolCall | None:
    value = json_object(text)
    return None if value is None else _call_from_value(value, offered, tagged=True)


def _call_from_value(
    value: dict[str, Any], offered: Collection[str], *, tagged: bool = False
) -> TextToolCall | None:
    """A call from `{"name": …, "arguments"|"parameters": …}`; in a tag the arguments may be absent."""
    if "function" in value and isinstance(value["function"], dict):
        value = value["function"]  # {"type": "function", "function": {…}}
    name = value.get("name")
    if not isinstance(name, str) or name not in offered or set(value) - _CALL_KEYS - {"function"}:
        return None
    has_arguments = "arguments" in value or "parameters" in value
    if not has_arguments and not tagged:
        return None
    arguments = value.get("arguments", value.get("parameters", {}))
    if isinstance(arguments, str):  # the OpenAI wire form: arguments as a JSON string
        arguments = json_object(arguments) if arguments.strip() else {}
    return TextToolCall(name, arguments) if isinstance(arguments, dict) else None


def _only(tag: re.Pattern[str], text: str) -> bool:
    """Whether `text` is nothing but `tag`s and whitespace (no prose between the calls)."""
    return not tag.sub("", text).strip()


def _parameter_value(raw: str) -> Any:
    text = raw.strip()
    try:
        return json.loads(text)
    except ValueError:
        return text


def _found(prose: str, calls: list[TextToolCall | None]) -> FoundCalls | None:
    if not calls or any(call is None for call in calls):
        return None
    return FoundCalls(prose.rstrip(), [call for call in calls if call is not None])


def rewrite_response(response: Any, offered: Collection[str]) -> Any:
    """An agentscope `ChatResponse` with a trailing text-form call turned into tool-call blocks.

    A response that already holds a tool call, or no text call, is returned unchanged.
    """
    from agentscope.message import TextBlock, ToolCallBlock

    content = list(response.content)
    if any(block.type == "tool_call" for block in content):
        return response
    text = "".join(block.text for block in content if block.type == "text")
    found = find_text_tool_calls(text, offered)
    if found is None:
        return response
    kept = [block for block in content if block.type != "text"]
    if found.prose:
        kept.append(TextBlock(text=found.prose))
    for call in found.calls:
        arguments = json.dumps(call.arguments, ensure_ascii=False)
        kept.append(
            ToolCallBlock(id=f"call_text_{uuid.uuid4().hex[:12]}", name=call.name, input=arguments)
        )
    response.content = kept
    return response


async def rewrite_stream(
    stream: AsyncIterator[Any], offered: Collection[str]
) -> AsyncIterator[Any]:
    """Pass a stream of `ChatResponse`s through, rewriting the final accumulated one.

    Deltas from where a call could begin (a line opening with a fence, a bracket or a tag) are
    held back until it is clear: dropped when the answer ends in a call (the call is not shown
    as text), sent on as soon as prose follows the block, or before the final response.
    """
    held: list[Any] = []
    text = ""
    start: int | None = None  # where the held part of `text` begins
    scanned = 0  # where to look for the next opening
    async for chunk in stream:
        if chunk.is_last:
            native = any(block.type == "tool_call" for block in chunk.content)
            final = rewrite_response(chunk, offered)
            calls = [block for block in final.content if block.type == "tool_call"]
            if native or not calls:
                for delta in held:  # the answer is its text: show what was held
                    yield delta
            else:  # the calls as deltas too, so the agent announces them like native ones
                import dataclasses

                yield dataclasses.replace(final, content=calls, is_last=False, usage=None)
            yield final
            return
        before = len(text)
        text += "".join(getattr(b, "text", "") for b in chunk.content if b.type == "text")
        if start is None:
            start = _opening(text, scanned)
            if start is not None and start > before:  # show the prose before the opening now
                shown, chunk = _split_text(chunk, start - before)
                if shown.content:
                    yield shown
        if start is None:
            yield chunk
            continue
        held.append(chunk)
        if not _may_be_a_call(text[start:]):
            for delta in held:
                yield delta
            held, start, scanned = [], None, len(text)


def _split_text(chunk: Any, keep: int) -> tuple[Any, Any]:
    """A one-text-block delta cut in two after `keep` characters (else nothing, and itself)."""
    import dataclasses

    (block,) = chunk.content if len(chunk.content) == 1 else (None,)
    if block is None or block.type != "text":
        return dataclasses.replace(chunk, content=[]), chunk
    head = block.model_copy(update={"text": block.text[:keep]})
    tail = block.model_copy(update={"text": block.text[keep:]})
    return dataclasses.replace(chunk, content=[head]), dataclasses.replace(chunk, content=[tail])


_CALL_OPENING = re.compile(r"(?:\A|\n)[ \t]*(?:```|\{|\[|<tool_call>|<function=)")
_CLOSING_TAGS = ("</tool_call>", "</function>")
_OPENERS = ("```", "<tool_call>", "<function=")


def _opening(text: str, scanned: int) -> int | None:
    """Where a call could begin in `text` (from `scanned` on), also a line that is so far
    only the start of a fence or tag; None when there is no such place."""
    opening = _CALL_OPENING.search(text, max(scanned - 1, 0))
    if opening:
        return opening.start()
    line = max(text.rfind("\n") + 1, scanned)
    tail = text[line:].lstrip(" \t")
    return line if tail and any(opener.startswith(tail) for opener in _OPENERS) else None


def _may_be_a_call(held: str) -> bool:
    """Whether `held` (from where a call could begin) may still be a call ending the answer."""
    body = held.strip()
    if not body or any(opener.startswith(body) for opener in _OPENERS):
        return True
    if len(body) > 20_000:
        return False
    if body.startswith("```"):
        if not _call_fence(body[3:]):  # ```python and the like: code, never a call
            return False
        closing = body.find("```", 3)
        return closing < 0 or not body[closing + 3 :].strip()
    if body.startswith(("<tool_call>", "<function=")):
        closing = max(body.rfind(tag) + len(tag) if tag in body else -1 for tag in _CLOSING_TAGS)
        rest = body[closing:].strip() if closing >= 0 else ""
        return not rest or rest.startswith("<")
    depth = 0
    for index, char in enumerate(body):
        depth += char in "{["
        depth -= char in "}]"
        if depth == 0:
            return not body[index + 1 :].strip()
    return True
