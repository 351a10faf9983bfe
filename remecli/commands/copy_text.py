"""What `/copy [N]` copies: the last answer, or its N-th code block (parsed with markdown-it)."""

from __future__ import annotations

from collections.abc import Iterable

from markdown_it import MarkdownIt

from remecli.agent import events as ev


def last_answer(events: Iterable[ev.CoreEvent]) -> str:
    """The answer text of the last assistant turn in a replay of the conversation."""
    turns: list[list[str]] = [[]]
    for event in events:
        if isinstance(event, ev.UserMessage):
            turns.append([])
        elif isinstance(event, ev.TextDelta):
            turns[-1].append(event.text)
    for parts in reversed(turns):
        text = "".join(parts).strip()
        if text:
            return text
    return ""


def code_blocks(markdown: str) -> list[str]:
    """The fenced and indented code blocks of `markdown`, in order."""
    tokens = MarkdownIt("commonmark").parse(markdown)
    return [t.content for t in tokens if t.type in ("fence", "code_block")]


def copy_target(answer: str, arg: str) -> tuple[str, str]:
    """(text to copy, what it is) for `/copy [N]`; raises `ValueError` saying what to type."""
    if not answer:
        raise ValueError("Nothing to copy yet: /copy copies the last answer once there is one.")
    arg = arg.strip()
    if not arg:
        return answer, "the last answer"
    blocks = code_blocks(answer)
    if not arg.isdigit() or not 1 <= int(arg) <= len(blocks):
        count = f"1–{len(blocks)}" if blocks else "none in the last answer"
        raise ValueError(f"/copy N copies code block N of the last answer (blocks: {count}).")
    return blocks[int(arg) - 1].rstrip("\n"), f"code block {arg}"
