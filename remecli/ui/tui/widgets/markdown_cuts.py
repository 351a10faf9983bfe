"""Where a streaming Markdown answer can be cut into segments that still read as one document.

Two kinds of cut. Between blocks: just after a blank line outside any code fence, before a line
that starts with a non-blank character (so no list continuation or indented code is cut off) and
is not a list item (a list split in two would be numbered and spaced as two lists).
Inside a long code block, at a line boundary: the head is closed with the fence's marker and
the rest re-opened with the fence's opening line, so each part is a complete block.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
LIST_ITEM = re.compile(r"^ {0,3}([-*+]|\d{1,9}[.)])(\s|$)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*\S", re.MULTILINE)


@dataclass(frozen=True)
class Cut:
    """Split at `offset`; `close` ends the head (a fence left open), `reopen` starts the rest."""

    offset: int
    close: str = ""
    reopen: str = ""


def safe_cut(source: str, start: int) -> int | None:
    """The last offset >= `start` between two blocks (see the module docstring)."""
    best = None
    for offset, line, in_fence in _lines(source):
        if in_fence or offset < max(start, 2) or not line[:1].strip():
            continue
        if not line.endswith("\n"):  # still arriving: "1" may become "10. item"
            break
        between_blocks = source[offset - 2 : offset] == "\n\n"
        if between_blocks and not FENCE.match(line) and not LIST_ITEM.match(line):
            best = offset
    return best


def open_fence(source: str) -> tuple[str, int] | None:
    """(opening line, offset of its first code line) of a fence still open at the end."""
    opened: tuple[str, int] | None = None
    for offset, line, in_fence in _lines(source):
        if _is_fence_line(line, opened[0] if opened else ""):
            opened = None if in_fence else (line, offset + len(line))
    return opened


def find_cut(markup: str, start: int, keep: int, code_keep: int) -> Cut | None:
    """Where to cut a tail `markup` (whose first `start` characters re-open a fence): inside a
    code block still open once its code in the tail is over `code_keep` characters
    (highlighting is the costliest to re-draw), at its last line boundary; else, over `keep`,
    the last block boundary; None when there is no cut to make."""
    fence = open_fence(markup)
    if fence is not None:
        opener, body = fence
        line_end = markup.rfind("\n") + 1
        marker = FENCE.match(opener)
        if marker and line_end - max(body, start) > code_keep:
            return Cut(line_end, close=marker.group(1) + "\n", reopen=opener)
    if len(markup) <= keep:
        return None
    cut = safe_cut(markup, start)
    return Cut(cut) if cut is not None and cut > start else None


def reference_definitions(source: str) -> str:
    """The link reference definitions (`[label]: url`) of `source`, one per line, so that every
    segment of an answer can resolve links defined in another."""
    return "\n".join(
        line for line in source.splitlines() if REFERENCE.match(line) and not FENCE.match(line)
    )


def _is_fence_line(line: str, open_marker_line: str) -> bool:
    """Whether `line` opens a fence (none open) or closes the one opened by `open_marker_line`."""
    match = FENCE.match(line)
    if not match:
        return False
    if not open_marker_line:
        return True
    opened = FENCE.match(open_marker_line)
    fence = opened.group(1) if opened else ""
    marker = match.group(1)
    return marker[0] == fence[0] and len(marker) >= len(fence) and not line.strip(" `~\n")


def _lines(source: str) -> Iterator[tuple[int, str, bool]]:
    """(offset, line, inside a fence before this line) for each line of `source`."""
    opener = ""
    offset = 0
    for line in source.splitlines(keepends=True):
        yield offset, line, bool(opener)
        if _is_fence_line(line, opener):
            opener = "" if opener else line
        offset += len(line)
