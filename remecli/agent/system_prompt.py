"""The main agent's system prompt: rendered from the prompt files beside this module."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from remecli.config.prompt_files import load_prompt, render
from remecli.notes.claims import parse_claim

PROMPTS = Path(__file__).parent / "prompts"


BYTES_PER_TOKEN_CAP = 8  # never read more than this many bytes per allowed token


def memory_head(
    memory_md: Path,
    max_lines: int,
    max_tokens: int = 0,
    count: Callable[[str], int] | None = None,
) -> str:
    """The head of MEMORY.md, framed for the system prompt ("" if none).

    At most `max_lines` lines and, with `count`, at most `max_tokens` tokens (a line too long
    for the budget is cut); a huge file is never read whole; superseded claims (struck
    through, `notes/claims.py`) are not sent. What was left out is said.
    """
    if max_lines <= 0 or not memory_md.is_file():
        return ""
    size = memory_md.stat().st_size
    limit = max_tokens * BYTES_PER_TOKEN_CAP if max_tokens > 0 else size
    with memory_md.open("rb") as handle:
        raw = handle.read(limit)
    every = raw.decode("utf-8", errors="replace").splitlines()
    lines = [line for line in every if not _superseded(line)]  # current claims only
    struck = len(every) - len(lines)
    if not any(line.strip() for line in lines):
        return ""
    kept: list[str] = []
    used = 0
    for line in lines[:max_lines]:
        cost = count(line) + 1 if count is not None and max_tokens > 0 else 0
        if count is not None and max_tokens > 0 and used + cost > max_tokens:
            room = max(0, (max_tokens - used) * 3)
            if room:
                kept.append(line[:room] + " …")
            break
        kept.append(line)
        used += cost
    head = "\n".join(kept)
    complete = len(kept) == len(lines) and size <= limit and not head.endswith(" …")
    more = (
        "" if complete else f"\n… (MEMORY.md is {size:,} bytes; only its head is shown: `read` it)"
    )
    if struck:
        more += (
            f"\n({struck} superseded claim{'s' if struck != 1 else ''} left out: "
            "`read` MEMORY.md for what was true before)"
        )
    return f"## MEMORY.md (what you already know about the user)\n{head}{more}"


def _superseded(line: str) -> bool:
    claim = parse_claim(line) if "~~" in line else None
    return claim is not None and claim.superseded


def build_system_prompt(
    *,
    language: str,
    workspace: Path,
    working_dir: Path,
    tools: Sequence[tuple[str, str]],
    memory: str = "",
    now: datetime | None = None,
) -> str:
    """The system prompt: name, workspace, memory folder, current time, tools, MEMORY.md head
    (and how to read wikilinks when the `memory_links` tool is offered)."""
    now = now or datetime.now().astimezone()
    tool_lines = "\n".join(f"- `{name}`: {desc}" for name, desc in tools) or "- (none)"
    prompt = (
        render(
            load_prompt(PROMPTS, "system", language),
            now=now.strftime("%Y-%m-%d %H:%M %Z (%A)"),
            workspace=workspace,
            working_dir=working_dir,
            tools=tool_lines,
            memory_head=memory,
        ).rstrip()
        + "\n"
    )
    if any(name == "memory_links" for name, _ in tools):
        from remecli.notes.links import prompt_text

        prompt += "\n" + prompt_text(language).strip() + "\n"
    return prompt
