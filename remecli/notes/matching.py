"""The one edit semantics of remecli: find the text an edit replaces (exact first, then
whitespace- and quote-tolerant), require it once, and replace it (`apply_edit`).

Every caller — the agent's `edit` tool, the summarizer's and dream's `edit`, the `memory_edit`
operation — uses `apply_edit` and words its refusals (`EditRefused.reason`) for its reader.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Literal

_QUOTES = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00a0": " ",
    }
)
_WHITESPACE = re.compile(r"\s+")


@dataclass
class Match:
    """Where old text was found: character spans in the content, and how."""

    spans: list[tuple[int, int]]
    tolerant: bool


def find_matches(content: str, old: str) -> Match:
    """All occurrences of `old` in `content`: exact ones, else tolerant ones.

    Tolerant matching maps curly quotes to straight ones, treats any run of spaces and tabs as
    one space and any run of whitespace holding a line break as one line break, and ignores
    whitespace around `old`. Spans always refer to the original `content`.
    """
    exact = _exact_spans(content, old)
    if exact:
        return Match(exact, tolerant=False)
    return Match(_tolerant_spans(content, old), tolerant=True)


def _exact_spans(content: str, old: str) -> list[tuple[int, int]]:
    spans = []
    start = content.find(old)
    while start != -1:
        spans.append((start, start + len(old)))
        start = content.find(old, start + len(old))
    return spans


def _normalise(text: str) -> tuple[str, list[int]]:
    """Normalised text and, for each of its characters, the index it came from in `text`."""
    text = text.translate(_QUOTES)
    out: list[str] = []
    origin: list[int] = []
    pos = 0
    for ws in _WHITESPACE.finditer(text):
        out.extend(text[pos : ws.start()])
        origin.extend(range(pos, ws.start()))
        out.append("\n" if "\n" in ws.group() else " ")
        origin.append(ws.start())
        pos = ws.end()
    out.extend(text[pos:])
    origin.extend(range(pos, len(text)))
    return "".join(out), origin


def _tolerant_spans(content: str, old: str) -> list[tuple[int, int]]:
    needle, _ = _normalise(old.strip())
    if not needle:
        return []
    haystack, origin = _normalise(content)
    spans = []
    start = haystack.find(needle)
    while start != -1:
        spans.append((origin[start], origin[start + len(needle) - 1] + 1))
        start = haystack.find(needle, start + len(needle))
    return spans


def tolerant_replacement(
    content: str, span: tuple[int, int], old: str, new: str
) -> tuple[int, str]:
    """Adapt `new` to a tolerant match: (start of the span to replace, text to put there).

    The match covers `old` without its surrounding whitespace, so the same surrounding
    whitespace is taken off `new`; when the match starts a line, `new` is re-indented from
    `old`'s indentation to the file's.
    """
    start = span[0]
    leading = old[: len(old) - len(old.lstrip())]
    trailing = old[len(old.rstrip()) :]
    old_indent = leading.rpartition("\n")[2]
    new = new.removeprefix(leading[: len(leading) - len(old_indent)])  # leading blank lines
    if trailing and new.endswith(trailing):
        new = new[: -len(trailing)]
    line_start = content.rfind("\n", 0, start) + 1
    file_indent = content[line_start:start]
    if file_indent.strip():  # the match starts mid-line: keep `new` as given
        return start, new.removeprefix(old_indent)
    lines = [
        file_indent + line[len(old_indent) :]
        if line.startswith(old_indent) and line.strip()
        else line
        for line in new.split("\n")
    ]
    return line_start, "\n".join(lines)


def line_of(content: str, index: int) -> int:
    """1-based line number of a character index."""
    return content.count("\n", 0, index) + 1


def closest_line(content: str, old: str) -> tuple[int, str] | None:
    """The line of `content` most like the first non-blank line of `old` (for a hint)."""
    wanted = next((line.strip() for line in old.splitlines() if line.strip()), "")
    if not wanted:
        return None
    lines = content.splitlines()
    best: tuple[float, int] | None = None
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if not stripped:
            continue
        matcher = difflib.SequenceMatcher(None, wanted, stripped, autojunk=False)
        if matcher.real_quick_ratio() < 0.6 or matcher.quick_ratio() < 0.6:
            continue
        ratio = matcher.ratio()
        if ratio >= 0.6 and (best is None or ratio > best[0]):
            best = (ratio, number)
    if best is None:
        return None
    return best[1], lines[best[1] - 1]


BOM = "\ufeff"
RefusalReason = Literal["not_found", "partial_line", "ambiguous", "unchanged"]


@dataclass(frozen=True)
class EditOutcome:
    """A done edit: the new content, where the change starts (index and 1-based line of the
    original content), and whether the match needed tolerance."""

    content: str
    start: int
    line: int
    tolerant: bool


@dataclass
class EditRefused(ValueError):
    """Why an edit cannot be made: `not_found`, `partial_line` (only part of a line matched
    under `whole_lines`), `ambiguous` (`lines` lists where it matched) or `unchanged`."""

    reason: RefusalReason
    tolerant: bool = False
    lines: list[int] = field(default_factory=list)

    def __str__(self) -> str:
        return self.reason


def apply_edit(content: str, old: str, new: str, *, whole_lines: bool = False) -> EditOutcome:
    """Replace the one occurrence of `old` in `content` with `new`; raises EditRefused.

    Exact matches win; without one, a whitespace- and quote-tolerant match is used (`new` is
    re-indented to the file). A leading BOM and CRLF line ends (when the file uses them
    throughout) are kept. `whole_lines`: matches that cover only part of a line do not count
    (a line someone extended meanwhile is never spliced into).
    """
    bom = content.startswith(BOM)
    text = content[len(BOM) :] if bom else content
    crlf = "\r\n" in text and text.count("\n") == text.count("\r\n")
    if crlf:
        text = text.replace("\r\n", "\n")
        old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
    outcome = _apply(text, old, new, whole_lines)
    updated = outcome.content
    if crlf:
        updated = updated.replace("\n", "\r\n")
    if bom:
        updated = BOM + updated
    return EditOutcome(updated, outcome.start, outcome.line, outcome.tolerant)


def _apply(content: str, old: str, new: str, whole_lines: bool) -> EditOutcome:
    match = find_matches(content, old)
    if not match.spans:
        raise EditRefused("not_found", match.tolerant)
    if whole_lines:
        match.spans = [span for span in match.spans if covers_whole_lines(content, span)]
        if not match.spans:
            raise EditRefused("partial_line", match.tolerant)
    if len(match.spans) > 1:
        lines = [line_of(content, start) for start, _ in match.spans]
        raise EditRefused("ambiguous", match.tolerant, lines)
    start, end = match.spans[0]
    replacement = new
    if match.tolerant:
        start, replacement = tolerant_replacement(content, match.spans[0], old, new)
    updated = content[:start] + replacement + content[end:]
    if updated == content:
        raise EditRefused("unchanged", match.tolerant)
    return EditOutcome(updated, start, line_of(content, start), match.tolerant)


def covers_whole_lines(content: str, span: tuple[int, int]) -> bool:
    """True when `span` covers whole lines (apart from indentation and trailing blanks)."""
    start, end = span
    head = content[content.rfind("\n", 0, start) + 1 : start]
    if end and content[end - 1] == "\n":
        tail = ""
    else:
        stop = content.find("\n", end)
        tail = content[end : len(content) if stop == -1 else stop]
    return not head.strip() and not tail.strip()
