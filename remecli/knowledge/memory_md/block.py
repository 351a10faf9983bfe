"""MEMORY.md's generated block: the digest's personal nodes (link + description), refreshed
after each dream. It sits between `<!-- digest:personal -->` and `<!-- /digest:personal -->`;
everything outside the markers is the user's (and the agent's) and is never changed.

MEMORY.md is in every system prompt, so what the dream learned about the user (preferences,
conventions, constraints) is in front of the model from the next conversation on.
"""

from __future__ import annotations

from pathlib import Path

from remecli.knowledge.write import write_memory_file
from remecli.notes.claims import parse_claims
from remecli.notes.files import read_memory_text
from remecli.notes.frontmatter import read_frontmatter
from remecli.notes.layout import WorkingDir
from remecli.notes.writer import MemoryWriter

BLOCK_START = "<!-- digest:personal -->"
BLOCK_END = "<!-- /digest:personal -->"
HEADING = "## What the digest knows about you"
MAX_NODES = 50


def personal_lines(layout: WorkingDir) -> list[str]:
    """One line per active personal node: `- [[path|name]]: description`, with `(since DATE)`
    when its claim changed (its `## History` has a current claim): a current timed claim."""
    folder = layout.digest_dir / "personal"
    lines = []
    for path in sorted(folder.glob("*.md")) if folder.is_dir() else []:
        meta, body = _node(path)
        if meta.get("status") == "contradicted" or meta.get("moved_from"):
            continue  # a section moved out of MEMORY.md already has its pointer there
        rel = path.relative_to(layout.root).as_posix()
        name = str(meta.get("name") or path.stem).replace("|", "/").replace("]", ")")
        description = " ".join(str(meta.get("description") or "").split())
        since = _current_since(body) if description else ""
        lines.append(f"- [[{rel}|{name}]]" + (f": {description}{since}" if description else ""))
    return lines[:MAX_NODES]


def _node(path: Path) -> tuple[dict[str, object], str]:
    try:
        note = read_frontmatter(read_memory_text(path))
    except (OSError, ValueError):
        return {}, ""
    return dict(note.meta), note.body


def _current_since(body: str) -> str:
    """` (since DATE)` of the node's current claim in its History, "" when it has none."""
    from remecli.knowledge.dream.timeline import history_lines  # dream loads at first use

    claims = parse_claims("\n".join(history_lines(body)))
    current = [claim.since for claim in claims if not claim.superseded and claim.since]
    return f" (since {max(current).isoformat()})" if current else ""


def with_block(text: str, lines: list[str]) -> str:
    """`text` with the block replaced (or appended; removed when there are no lines)."""
    start, end = text.find(BLOCK_START), -1
    if start != -1:
        end = text.find(BLOCK_END, start)
    body = "\n".join([BLOCK_START, HEADING, "", *lines, BLOCK_END]) if lines else ""
    if start != -1 and end != -1:
        after = text[end + len(BLOCK_END) :]
        before = text[:start]
        if not body:
            return before.rstrip("\n") + "\n" + after.lstrip("\n")
        return before + body + after
    if not body:
        return text
    return text.rstrip("\n") + "\n\n" + body + "\n"


def refresh_memory_md(layout: WorkingDir, writer: MemoryWriter) -> bool:
    """Regenerate the block from `digest/personal/`; True when MEMORY.md was rewritten."""
    path = layout.memory_md
    try:
        current = read_memory_text(path, keep_bytes=True)
    except FileNotFoundError:
        current = ""
    updated = with_block(current, personal_lines(layout))
    if updated == current:
        return False
    write_memory_file(writer, path, updated, "dream (MEMORY.md digest block)", base=current)
    return True
