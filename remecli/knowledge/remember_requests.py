"""An explicit "please remember …" from the user: found by code, kept in MEMORY.md by code.

The assistant's system prompt asks the chat model to put what the user explicitly asks it to
remember into `MEMORY.md`; a large model does (its `edit` is in the transcript), a small local
one does not (measured on Qwen2.5-Coder 1.5B: no tool call, and the card writer then judged the
conversation "nothing worth storing"). So the card writer finds such requests in the user's own
turns, tells its model they are worth keeping, and afterwards adds the user's words as one bullet
to `MEMORY.md` (linking the card) unless the conversation already wrote `MEMORY.md` or the file
already holds them. A request is a sentence that starts with the phrase ("please remember: …",
"Remember that …", "请记住：…"); a question ("remember what we chose?") is not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from remecli.config.locations import MEMORY_MD_HEADER
from remecli.knowledge.cards_write import write_memory_file
from remecli.knowledge.memory_md_block import BLOCK_START
from remecli.notes.files import read_memory_text
from remecli.notes.layout import WorkingDir
from remecli.notes.writer import MemoryWriter

_REQUEST = re.compile(
    r"(?:^|(?<=[.!;\n])\s*)(?:(?:please|also|and|so|pls)[\s,]+)*"
    r"(?:remember|keep in mind|don'?t forget|do not forget|make a note(?: of)?|note down)"
    r"(?:\s+(?:this|that|these|the following))?\s*[:,\-–—]?\s*",
    re.IGNORECASE,
)
_REQUEST_ZH = re.compile(
    r"(?:^|(?<=[。！；\n]))\s*请?(?:记住|记下|记一下|别忘了)(?:这个|这些|一下)?\s*[：:，,]?\s*"
)
_WORD = re.compile(r"\w[\w./-]*")
MAX_FACT_CHARS = 400
MIN_FACT_WORDS = 2
_WRITE_TOOLS = ("write", "edit")


def _user_text(msg: Any) -> str:
    """The text blocks of a user message (nothing for other roles)."""
    if getattr(msg, "role", "") != "user":
        return ""
    content = msg.content
    if isinstance(content, str):
        return content
    return "\n".join(b.text for b in content if getattr(b, "type", "") == "text")


def _fact_after(text: str, end: int) -> str:
    """What follows a request phrase: to the end of the message, unless it is a question."""
    fact = " ".join(text[end:].split()).strip(" -–—")
    if fact.endswith(("?", "？")) or len(_WORD.findall(fact)) < MIN_FACT_WORDS:
        return ""
    if len(fact) > MAX_FACT_CHARS:
        fact = fact[:MAX_FACT_CHARS].rsplit(" ", 1)[0] + " …"
    return fact


def remember_requests(messages: Iterable[Any]) -> list[str]:
    """The facts the user explicitly asked to remember, in their own words (one per request)."""
    facts: list[str] = []
    for msg in messages:
        text = _user_text(msg)
        for pattern in (_REQUEST, _REQUEST_ZH):
            match = pattern.search(text)
            if match is not None:
                fact = _fact_after(text, match.end())
                if fact and fact not in facts:
                    facts.append(fact)
                break
    return facts


def wrote_memory_md(messages: Iterable[Any]) -> bool:
    """True when the conversation itself changed MEMORY.md (a `write`/`edit` call naming it)."""
    for msg in messages:
        content = getattr(msg, "content", None)
        for block in content if isinstance(content, list) else []:
            if getattr(block, "type", "") != "tool_call":
                continue
            if getattr(block, "name", "") in _WRITE_TOOLS and "MEMORY.md" in str(block.input):
                return True
    return False


def one_shot_worth_a_card(messages: Iterable[Any]) -> bool:
    """Whether a `-p` one-shot earns a topic card (one more model call): it used a tool, or the
    user asked to remember something. A plain question and its answer keep only their
    transcript (searchable), no card and no call beyond the answer."""
    messages = list(messages)
    for msg in messages:
        content = getattr(msg, "content", None)
        blocks = content if isinstance(content, list) else []
        if any(getattr(block, "type", "") == "tool_call" for block in blocks):
            return True
    return bool(remember_requests(messages))


def _plain(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def with_facts(current: str, facts: list[str], link: str) -> str:
    """`current` (MEMORY.md) with a bullet per fact it does not hold yet, before the digest's
    generated block (or at the end)."""
    known = _plain(current)
    bullets = [f"- {fact}{link}" for fact in facts if _plain(fact) not in known]
    if not bullets:
        return current
    text = current or MEMORY_MD_HEADER
    start = text.find(BLOCK_START)
    if start == -1:
        return text.rstrip("\n") + "\n" + "\n".join(bullets) + "\n"
    before = text[:start].rstrip("\n")
    return before + "\n" + "\n".join(bullets) + "\n\n" + text[start:]


def record_requests(
    layout: WorkingDir, writer: MemoryWriter, facts: list[str], card: Path | None
) -> list[str]:
    """Add `facts` to MEMORY.md, each linking `card` when there is one; ["MEMORY.md"] when it
    was written, else []."""
    if not facts:
        return []
    link = ""
    if card is not None and card.is_file():
        rel = card.relative_to(layout.root).as_posix()
        link = f" ([[{rel}]])"
    path = layout.memory_md
    try:
        current = read_memory_text(path, keep_bytes=True)
    except FileNotFoundError:
        current = ""
    updated = with_facts(current, facts, link)
    if updated == current:
        return []
    write_memory_file(writer, path, updated, "summarizer (asked to remember)", base=current)
    return [path.relative_to(layout.root).as_posix()]
