"""An explicit "please remember …" from the user: found by code, kept in MEMORY.md by code.

The assistant's system prompt asks the chat model to put what the user explicitly asks it to
remember into `MEMORY.md`; a large model does (its `edit` is in the transcript), a small local
one does not (measured on Qwen2.5-Coder 1.5B: no tool call, and the card writer then judged the
conversation "nothing worth storing"). So the card writer finds such requests in the user's own
turns, tells its model they are worth keeping, and afterwards adds the user's words as one bullet
to `MEMORY.md` (linking the card) unless the conversation already wrote `MEMORY.md` or the file
already holds them. A request is a sentence anywhere in the message that starts with the phrase
("please remember: …", "Remember that …", "请记住：…"); its fact is what follows, up to the next
request or the first question ("please remember: X. And what …?" keeps "X."). A question
("remember what we chose?"), reminiscing ("remember when …") or "do you remember …" is none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from remecli.config.locations import MEMORY_MD_HEADER
from remecli.knowledge.memory_md.block import BLOCK_START
from remecli.knowledge.write import write_memory_file
from remecli.notes.files import read_memory_text
from remecli.notes.layout import WorkingDir
from remecli.notes.writer import MemoryWriter

if TYPE_CHECKING:
    from remecli.llm.conversation_state import ContextMessage

_REQUEST = re.compile(  # a sentence's start (a clause's: with "please"), never "do you remember"
    r"(?:^|(?<=[.!?;\n])\s*|(?<=,)\s*(?=please\b))(?:(?:please|also|and|so|pls)[\s,]+)*"
    r"(?:remember|keep in mind|don'?t forget|do not forget|make a note(?: of)?|note down)\b"
    r"(?:\s+(?:this|that|these|the following)\b)?\s*[:,\-–—]?\s*",
    re.IGNORECASE,
)
_REQUEST_ZH = re.compile(
    r"(?:^|(?<=[。！？；：，\n]))\s*请?(?:记住|记下|记一下|别忘了)(?:这个|这些|一下)?\s*[：:，,]?\s*"
)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")  # "v1.2" or "db-7.internal": one
_REMINISCING = re.compile(r"when\b", re.IGNORECASE)  # "remember when we…": not a request
_WORD = re.compile(r"\w[\w./-]*")
MAX_FACT_CHARS = 400
MIN_FACT_WORDS = 2
_WRITE_TOOLS = ("write", "edit")


def _user_text(msg: ContextMessage) -> str:
    """The text blocks of a user message (nothing for other roles)."""
    if getattr(msg, "role", "") != "user":
        return ""
    content = msg.content
    if isinstance(content, str):
        return content
    return "\n".join(b.text for b in content if getattr(b, "type", "") == "text")


def _fact_after(text: str) -> str:
    """What follows a request phrase (`text`, up to the next one): its sentences up to the
    first question; "" when it starts with one, or reminisces ("when …")."""
    kept: list[str] = []
    for sentence in _SENTENCES.split(text):
        sentence = " ".join(sentence.split())
        if sentence.endswith(("?", "？")):
            break
        kept += [sentence] if sentence else []
    fact = " ".join(kept).strip(" -–—")
    if _REMINISCING.match(fact) or len(_WORD.findall(fact)) < MIN_FACT_WORDS:
        return ""
    if len(fact) > MAX_FACT_CHARS:
        fact = fact[:MAX_FACT_CHARS].rsplit(" ", 1)[0] + " …"
    return fact


def remember_requests(messages: Iterable[ContextMessage]) -> list[str]:
    """The facts the user explicitly asked to remember, in their own words (one per request)."""
    facts: list[str] = []
    for msg in messages:
        text = _user_text(msg)
        found = sorted(
            m.span() for pattern in (_REQUEST, _REQUEST_ZH) for m in pattern.finditer(text)
        )
        ends = [start for start, _end in found[1:]] + [len(text)]
        for (_start, end), next_start in zip(found, ends, strict=False):  # none: no request
            fact = _fact_after(text[end:next_start])
            if fact and fact not in facts:
                facts.append(fact)
    return facts


def wrote_memory_md(messages: Iterable[ContextMessage]) -> bool:
    """True when the conversation itself changed MEMORY.md (a `write`/`edit` call naming it)."""
    for msg in messages:
        content = getattr(msg, "content", None)
        for block in content if isinstance(content, list) else []:
            if getattr(block, "type", "") != "tool_call":
                continue
            if getattr(block, "name", "") in _WRITE_TOOLS and "MEMORY.md" in str(block.input):
                return True
    return False


def one_shot_worth_a_card(messages: Iterable[ContextMessage]) -> bool:
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
