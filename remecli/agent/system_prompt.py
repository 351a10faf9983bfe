"""The main agent's system prompt: rendered from the prompt files beside this module."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from remecli.prompt_files import load_prompt, render

PROMPTS = Path(__file__).parent / "prompts"


def memory_head(memory_md: Path, max_lines: int) -> str:
    """The first `max_lines` of MEMORY.md, framed for the system prompt ("" if none)."""
    if max_lines <= 0 or not memory_md.is_file():
        return ""
    lines = memory_md.read_text(encoding="utf-8", errors="replace").splitlines()
    if not any(line.strip() for line in lines):
        return ""
    head = "\n".join(lines[:max_lines])
    more = (
        f"\n… ({len(lines) - max_lines} more lines: `read` MEMORY.md)"
        if len(lines) > max_lines
        else ""
    )
    return f"## MEMORY.md (what you already know about the user)\n{head}{more}"


def build_system_prompt(
    *,
    language: str,
    workspace: Path,
    working_dir: Path,
    tools: Sequence[tuple[str, str]],
    memory: str = "",
    now: datetime | None = None,
) -> str:
    """The system prompt: name, workspace, memory folder, current time, tools, MEMORY.md head."""
    now = now or datetime.now().astimezone()
    tool_lines = "\n".join(f"- `{name}`: {desc}" for name, desc in tools) or "- (none)"
    return (
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
