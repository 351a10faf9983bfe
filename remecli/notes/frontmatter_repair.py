"""Frontmatter a small model wrote loosely, found and repaired before it is parsed: a block
inside a ``` fence or bare in an answer, a missing closing `---`, values holding `: ` unquoted
(`description: Moved: yes` is not valid YAML). The one parser (`frontmatter.py`) then reads it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

_FENCED = re.compile(r"```[\w-]*[ \t]*\n(?P<body>---\n.*?)\n?```", re.DOTALL)
_BARE = re.compile(r"(?:^|\n)(?P<body>---\n.*)", re.DOTALL)
_TRAILING_FENCE = re.compile(r"\n```\s*$")  # the example's closing fence, copied
FENCE = "---"


def frontmatter_blocks(answer: str) -> list[str]:
    """Candidate notes in `answer` that start with a frontmatter block (fenced first, then bare),
    repaired."""
    found = []
    for pattern in (_FENCED, _BARE):
        match = pattern.search(answer)
        if match:
            body = _TRAILING_FENCE.sub("", match.group("body")).strip() + "\n"
            found.append(repair_frontmatter(body))
    return found


def without_trailing_fences(text: str, also: Callable[[str], bool] = lambda _line: False) -> str:
    """`text` without what a model put after the note it wrote out: lone `---` or ``` lines,
    blank lines, and lines `also` accepts (e.g. a marker it copied from the prompt)."""
    lines = text.rstrip().split("\n")
    while len(lines) > 1 and (lines[-1].strip() in ("", FENCE, "```") or also(lines[-1])):
        lines.pop()
    return "\n".join(lines) + "\n"


def repair_frontmatter(text: str) -> str:
    """`text` with its frontmatter closed and its `: `-holding values quoted."""
    return _quoted(_closed(text))


def _closed(text: str) -> str:
    """The closing `---` put back before the first line that is not YAML (a heading or a blank
    line), when it was left out."""
    lines = text.split("\n")
    if any(line.strip() == FENCE for line in lines[1:]):
        return text
    for number, line in enumerate(lines[1:], start=1):
        if not line.strip() or line.startswith("#"):
            return "\n".join([*lines[:number], FENCE, *lines[number:]])
    return text


def _quoted(text: str) -> str:
    """Frontmatter values that hold `: ` quoted as JSON strings (valid YAML)."""
    lines = text.split("\n")
    end = next((n for n, line in enumerate(lines[1:], start=1) if line.strip() == FENCE), 0)
    for number in range(1, end):
        key, sep, value = lines[number].partition(": ")
        value = value.strip()
        if sep and ": " in value and value[:1] not in "\"'[{|>":
            lines[number] = f"{key}: " + json.dumps(value, ensure_ascii=False)
    return "\n".join(lines)
