"""Completion of `@path` mentions in the prompt: the partial path before the cursor, the
workspace entries that complete it (from the core's `path_options`), and putting one in."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from textual.widgets import TextArea

if TYPE_CHECKING:  # the workspace lister loads with the first edit, not before the first frame
    from remecli.tools.mentions import PathOption

_TAIL = re.compile(r"(?:^|(?<=\s))@([^\s@]*)$")


def partial_mention(before_cursor: str) -> str | None:
    """The path typed after an `@` that ends at the cursor, or None when there is none."""
    match = _TAIL.search(before_cursor)
    return match.group(1) if match else None


def text_before_cursor(box: TextArea) -> str:
    """What the cursor's line holds left of the cursor."""
    row, column = box.cursor_location
    return box.document.get_line(row)[:column]


def options_at_cursor(box: TextArea, workspace: Path) -> list[PathOption] | None:
    """Completions for the mention at the cursor; None when the cursor is not in one."""
    from remecli.tools.mentions import path_options

    partial = partial_mention(text_before_cursor(box))
    return None if partial is None else path_options(workspace, partial)


def complete_at_cursor(box: TextArea, path: str) -> None:
    """Replace the partial mention at the cursor with `path` (a file gets a space after it,
    a folder none, so its entries are offered next)."""
    partial = partial_mention(text_before_cursor(box))
    if partial is None:
        return
    row, column = box.cursor_location
    ending = "" if path.endswith("/") else " "
    result = box.replace(path + ending, (row, column - len(partial)), (row, column))
    box.move_cursor(result.end_location)
