"""One transcript line as readable Markdown: who, when, what, ending in the Obsidian block id
`^L<n>` of its line number (Obsidian allows letters, digits and dashes in block ids).

A line renders the same whatever comes before it (no state), so appending the blocks of new lines
gives exactly the page a full rendering gives. Each block is a heading paragraph that carries the
id (`**user** · 2025-01-31 10:02:11 ^L12`), then the record's content as a block quote: text whole,
thinking, tool calls and tool results shortened. Quoting keeps whatever the text holds (an
unclosed code fence, HTML) inside its own block; a `^id` at the end of a quoted line and `%%`
(Obsidian's comment mark, which would hide the rest of the page) are escaped.
"""

from __future__ import annotations

import json
import re
from typing import Any

from remecli.llm.blocks import clip

CALL_CHARS = 300
RESULT_LINES = 6
RESULT_LINE_CHARS = 160
NOTE_CHARS = 160
CHECKPOINT_CHARS = 600
_FAKE_BLOCK_ID = re.compile(r"(\s)\^([A-Za-z0-9-]+)(\s*)$")
_NAME_DROP = re.compile(r"[^\w .@+/-]+")
_BACKTICKS = re.compile(r"`+")


def block_id(line: int) -> str:
    """The Obsidian block id of transcript line `line` (1-based): `L12`."""
    return f"L{line}"


def render_line(number: int, raw: bytes) -> str:
    """The Markdown block of JSONL line `number` (without its newline), ending in a blank line."""
    record = _record(raw)
    if not raw.strip():
        return _block(number, "**empty line**", [])
    if record is None:
        return _block(number, "**unreadable line** (cut or not JSON)", [])
    kind = record.get("t")
    when = _when(record.get("at"))
    if kind == "msg" and isinstance(record.get("msg"), dict):
        msg = record["msg"]
        who = _name(msg.get("name")) or _name(msg.get("role")) or "unknown"
        return _block(number, f"**{who}**{when}", _content(msg.get("content")))
    if kind == "blocks":
        return _block(number, f"**continued**{when}", _content(record.get("blocks")))
    if kind == "checkpoint":
        summary = clip(str(record.get("summary") or ""), CHECKPOINT_CHARS)
        return _block(number, f"**compaction checkpoint**{when}", [_text_lines(summary)])
    if kind == "removed":
        count = len(record.get("msg_ids") or [])
        return _block(number, f"**removed from the context**{when}", [[f"{count} message(s)"]])
    return _block(number, f"**record {_name(kind) or '?'}**{when}", [])


def _record(raw: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(raw.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError is a ValueError
        return None
    return record if isinstance(record, dict) else None


def _block(number: int, heading: str, parts: list[list[str]]) -> str:
    """The heading paragraph with the block id, then each of `parts` as its own quote (so an
    unclosed fence or HTML block in one part ends with it)."""
    quotes = ["".join(f"> {line}\n" if line else ">\n" for line in part) for part in parts if part]
    return f"{heading} ^{block_id(number)}\n\n" + "".join(f"{quote}\n" for quote in quotes)


def _name(value: object) -> str:
    return _NAME_DROP.sub("", " ".join(str(value or "").split()))[:60].strip()


def _when(value: object) -> str:
    text = str(value or "")
    match = re.match(r"(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}(?::\d{2})?)", text)
    return f" · {match.group(1)} {match.group(2)}" if match else ""


def _escape(line: str) -> str:
    """A line of quoted text that ends no block and opens no comment in Obsidian."""
    line = line.replace("%%", "%\\%")
    return _FAKE_BLOCK_ID.sub(r"\1\\^\2\3", line)


def _text_lines(text: str) -> list[str]:
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip("\n")
    return [_escape(line) for line in text.split("\n")] if text.strip() else []


def _one_line(text: str, limit: int) -> str:
    return clip(" ".join(text.split()), limit)


def _code_span(text: str) -> str:
    """`text` as inline code, fenced with more backticks than any run inside it."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _content(content: object) -> list[list[str]]:
    """The lines of each content block (a plain string is one text block)."""
    if isinstance(content, str):
        return [_text_lines(content)]
    blocks = content if isinstance(content, list) else []
    return [_block_lines(block) for block in blocks if isinstance(block, dict)]


def _block_lines(block: dict[str, Any]) -> list[str]:
    kind = str(block.get("type") or "")
    if kind == "text":
        return _text_lines(str(block.get("text") or ""))
    if kind == "tool_call":
        raw = block.get("input")
        shown = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)
        call = _code_span(_escape(_one_line(shown or "", CALL_CHARS)))
        return [f"→ tool call **{_name(block.get('name')) or '?'}** {call}"]
    if kind == "tool_result":
        return _result_lines(block)
    if kind == "thinking":
        return [_escape(f"*(thinking)* {_one_line(str(block.get('thinking') or ''), NOTE_CHARS)}")]
    if kind == "hint":
        hint = block.get("hint")
        text = hint if isinstance(hint, str) else _output_text(hint)
        return [_escape(f"*(hint)* {_one_line(text, NOTE_CHARS)}")]
    if kind == "data":
        source = block.get("source")
        media = source.get("media_type") if isinstance(source, dict) else ""
        return [f"*(attachment {_name(block.get('name') or media) or 'data'})*"]
    return [f"*({_name(kind) or 'block'})*"]


def _output_text(output: object) -> str:
    if isinstance(output, str):
        return output
    parts = output if isinstance(output, list) else []
    return "".join(str(p.get("text") or "") for p in parts if isinstance(p, dict))


def _result_lines(block: dict[str, Any]) -> list[str]:
    text = _output_text(block.get("output")).replace("\r\n", "\n").strip("\n")
    all_lines = text.split("\n") if text else []
    state = _name(block.get("state"))
    about = f"{len(all_lines)} line(s), {len(text)} chars" + (f", {state}" if state else "")
    head = f"← result of **{_name(block.get('name')) or '?'}** ({about})"
    if not all_lines:
        return [head]
    shown = [_escape(clip(line, RESULT_LINE_CHARS)) for line in all_lines[:RESULT_LINES]]
    if len(all_lines) > RESULT_LINES:
        shown.append(f"… {len(all_lines) - RESULT_LINES} more line(s)")
    longest = max((len(run) for run in _BACKTICKS.findall("\n".join(shown))), default=0)
    fence = "`" * max(3, longest + 1)
    return [head, fence, *shown, fence]
