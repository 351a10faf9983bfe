"""Markdown-aware chunking: headings, paragraphs, list items and code fences, packed by tokens.

Blocks come from markdown-it-py (CommonMark, the parser rich ships), with their source lines.

Each chunk knows its file, 1-based inclusive line range and heading path. A heading starts a new
chunk; blocks are packed up to `max_tokens`; when a chunk fills up, the next one repeats up to
`overlap_tokens` of its tail. A fenced code block that fits is never split; longer blocks are cut
at line boundaries and over-long lines at sentence (then token) boundaries, after cutting them
into bounded slices (the work stays linear in bytes, whatever the line structure).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from markdown_it import MarkdownIt

from remecli.search.types import Chunk

_MARKDOWN = MarkdownIt("commonmark").disable(["inline", "text_join"])  # blocks only
_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s*")


class ChunkingStopped(Exception):
    """`should_stop` answered True: the index is closing, the file is chunked next time."""


@dataclass(slots=True)
class _Unit:
    """The smallest piece the packer moves: a line, a whole fence, or part of a long line."""

    start: int
    end: int
    text: str
    tokens: int


@dataclass(slots=True)
class _Block:
    kind: str  # heading | fence | para | item
    start: int
    lines: list[str]
    headings: tuple[str, ...]

    @property
    def end(self) -> int:
        return self.start + len(self.lines) - 1


_HEADING_CHARS = 200  # a heading in a chunk's heading path is cut to this many characters
_SEGMENT_LINES = 4000  # a longer file is parsed in pieces of about this many lines
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_BLOCK_START = re.compile(r"^(?:#{1,6}(?:\s|$)|[-*+]\s+\S|\d{1,9}[.)]\s+\S)")
_THEMATIC_BREAK = re.compile(r"^(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$")
_Span = tuple[int, int, str, str, int]  # start, end (exclusive), kind, title, level


def _parse_blocks(lines: list[str], should_stop: Callable[[], bool] | None = None) -> list[_Block]:
    """Markdown blocks from markdown-it-py's token stream, tracking the heading path of each.

    Leaf blocks keep their source lines (`token.map`); a list item stops where a nested item,
    fence or heading starts; lines no token covers (link definitions, …) become paragraphs. A
    long file is parsed in pieces cut where a top-level block starts, so time stays linear and
    memory bounded (markdown-it's tokens of a 50 MB file would take gigabytes).
    """
    blocks_at: list[_Span] = []
    for first, last, simple in _segments(lines):
        if should_stop is not None and should_stop():
            raise ChunkingStopped
        if simple:
            blocks_at += [(n, n + 1, "item", "", 0) for n in range(first, last)]
            continue
        blocks_at += [
            (start + first, end + first, kind, title, level)
            for start, end, kind, title, level in _segment_spans(lines[first:last])
        ]
    blocks: list[_Block] = []
    stack: list[tuple[int, str]] = []
    for start, end, kind, title, level in blocks_at:
        if kind == "heading":
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, _heading_title(title)))
        blocks.append(_Block(kind, start + 1, lines[start:end], tuple(t for _, t in stack)))
    return blocks


def _heading_title(title: str) -> str:
    """A heading's text as it enters the heading path of every chunk below it: cut to
    `_HEADING_CHARS` (a setext heading can be a paragraph of megabytes, and repeating it in each
    chunk made indexing such a file quadratic)."""
    title = title.strip()
    return title if len(title) <= _HEADING_CHARS else title[: _HEADING_CHARS - 1].rstrip() + "…"


def _segments(lines: list[str], size: int = _SEGMENT_LINES) -> list[tuple[int, int, bool]]:
    """(first, last, simple) line ranges covering the file: runs of one-line top-level bullets
    (`simple`: each line is an item, no parser needed) and, between them, pieces of about
    `size` lines for markdown-it, cut before a line that starts a top-level block (a heading, a
    list item, or any unindented line after a blank one) outside a fenced code block."""
    ranges: list[tuple[int, int, bool]] = []
    first = 0
    fence = ""
    n = 0
    while n < len(lines):
        line = lines[n]
        opener = _FENCE.match(line)
        if opener:
            mark = opener.group(1)
            if not fence:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence) and not line.strip(" `~"):
                fence = ""
            n += 1
            continue
        if fence or not line or line[0].isspace():
            n += 1
            continue
        run = n
        while (
            run + 1 < len(lines) and _simple_bullet(lines[run]) and _simple_bullet(lines[run + 1])
        ):
            run += 1  # the run's last line may continue lazily: left to the parser
        if run - n >= _MIN_SIMPLE_RUN:
            if n > first:
                ranges.append((first, n, False))
            ranges.append((n, run, True))
            first = n = run
            continue
        starts = n == 0 or (not lines[n - 1].strip()) or _starts_block(line)
        if starts and n - first >= size:
            ranges.append((first, n, False))
            first = n
        n += 1
    ranges.append((first, len(lines), False))
    return [r for r in ranges if r[1] > r[0]]


_MIN_SIMPLE_RUN = 64
_SIMPLE_BULLET = re.compile(r"[-*+] (?! |[-*+](?:\s|$)|\d{1,9}[.)](?:\s|$)|[#>|<]|`{3}|~{3})\S")


def _simple_bullet(line: str) -> bool:
    """A top-level list item that is one line of plain text (no nested block in it)."""
    return _SIMPLE_BULLET.match(line) is not None and not _THEMATIC_BREAK.match(line.strip())


def _starts_block(line: str) -> bool:
    return _BLOCK_START.match(line) is not None and not _THEMATIC_BREAK.match(line.strip())


def _segment_spans(lines: list[str]) -> list[_Span]:
    """The block spans of one piece of a file, sorted, line numbers relative to it."""
    tokens = _MARKDOWN.parse("\n".join(lines))
    spans: list[_Span] = []
    for k, token in enumerate(tokens):
        if token.map is None:
            continue
        start, end = token.map
        if token.type == "heading_open":
            title = tokens[k + 1].content if k + 1 < len(tokens) else ""
            spans.append((start, end, "heading", title, int(token.tag[1:])))
        elif token.type == "fence":
            spans.append((start, end, "fence", "", 0))
        elif token.type == "list_item_open":
            spans.append((start, end, "item", "", 0))
        elif token.type in ("paragraph_open", "html_block", "hr", "table_open", "code_block"):
            spans.append((start, end, "para", "", 0))
    del tokens
    spans.sort(key=lambda s: (s[0], s[2] != "item"))
    owned = [False] * len(lines)
    blocks_at: list[_Span] = []
    for index, (start, end, kind, title, level) in enumerate(spans):
        if kind == "item":
            end = _item_end(spans, index, start, end)
        if kind == "para" and any(owned[start:end]):
            continue
        while end > start and not lines[end - 1].strip():
            end -= 1
        if end <= start:
            continue
        for n in range(start, end):
            owned[n] = True
        blocks_at.append((start, end, kind, title, level))
    n = 0
    while n < len(lines):  # lines no token claimed
        if not owned[n] and lines[n].strip():
            first = n
            while n < len(lines) and not owned[n] and lines[n].strip():
                n += 1
            blocks_at.append((first, n, "para", "", 0))
        n += 1
    blocks_at.sort()
    return blocks_at


def _item_end(spans: list[_Span], index: int, start: int, end: int) -> int:
    """Where the list item `spans[index]` stops: at the first nested item, fence or heading
    after its first line (spans are sorted by start, so the scan stops at the first one or at
    the item's end: linear over a list, not quadratic)."""
    for later in range(index + 1, len(spans)):
        later_start, _, later_kind, _, _ = spans[later]
        if later_start >= end:
            break
        if later_start > start and later_kind != "para":
            return later_start
    return end


_LONG_LINE_CHARS_PER_TOKEN = 8  # a line longer than max_tokens × this is cut, never counted whole
_SLICE_CHARS = 32 * 1024  # an over-long line is cut into slices of at most this many characters


def _slices(text: str, size: int = _SLICE_CHARS) -> Iterator[str]:
    """`text` in pieces of at most `size` characters, cut after a whitespace near the end of
    each piece when there is one (so tokenizing and sentence splitting see bounded input)."""
    start = 0
    while len(text) - start > size:
        end = start + size
        space = max(text.rfind(" ", end - size // 4, end), text.rfind("\t", end - size // 4, end))
        if space > start:
            end = space + 1
        yield text[start:end]
        start = end
    yield text[start:]


def _split_long_line(
    text: str,
    number: int,
    max_tokens: int,
    count: Callable[[str], int],
    encode: Callable[[str], list[int]],
    decode: Callable[[list[int]], str],
    should_stop: Callable[[], bool] | None = None,
) -> list[_Unit]:
    """Cut one over-long line at sentence ends, and sentences still too long at token windows.

    The line is first cut into bounded slices, and pieces are packed by the sum of their token
    counts (a unit's count is that sum, as a chunk's is the sum of its lines'), so each
    character is tokenized about once: the work is linear in the line's length whatever its
    shape (one 50 MB line, no sentence end in it, …).
    """
    units: list[_Unit] = []
    buffer = ""
    used = 0
    for part in _slices(text):
        if should_stop is not None and should_stop():
            raise ChunkingStopped
        for piece, tokens in _pieces(part, max_tokens, count, encode, decode):
            if buffer and used + tokens + 1 > max_tokens:
                units.append(_Unit(number, number, buffer, used))
                buffer, used = "", 0
            buffer = f"{buffer} {piece}" if buffer else piece
            used += tokens + (1 if used else 0)
    if buffer.strip():
        units.append(_Unit(number, number, buffer, used))
    return units


def _pieces(
    text: str,
    max_tokens: int,
    count: Callable[[str], int],
    encode: Callable[[str], list[int]],
    decode: Callable[[list[int]], str],
) -> Iterator[tuple[str, int]]:
    """(piece, tokens) of a bounded slice: its sentences, too-long ones cut at token windows."""
    for sentence in _SENTENCE_END.split(text):
        sentence = sentence.strip()
        if not sentence:
            continue
        short = len(sentence) <= max_tokens * _LONG_LINE_CHARS_PER_TOKEN
        tokens = count(sentence) if short else max_tokens + 1
        if tokens <= max_tokens:
            yield sentence, tokens
            continue
        ids = encode(sentence)
        for k in range(0, len(ids), max_tokens):
            window = ids[k : k + max_tokens]
            yield decode(window).strip(), len(window)


class MarkdownChunker:
    """Turns a Markdown text into token-bounded chunks (see the module docstring)."""

    def __init__(
        self,
        max_tokens: int,
        overlap_tokens: int,
        counter: Callable[[str], int] | None = None,
    ) -> None:
        """Sizes in tokens; their defaults live in `SearchSettings` (chunk_tokens, chunk_overlap)."""
        from remecli.llm.tokens import get_token_counter

        token_counter = get_token_counter()
        self.max_tokens = max_tokens
        self.overlap_tokens = min(overlap_tokens, max_tokens // 2)
        self._count = counter or token_counter.count
        self.should_stop: Callable[[], bool] | None = None  # checked between pieces of a file
        self._encode = token_counter.encode
        self._decode = token_counter.decode

    def token_functions(
        self,
    ) -> tuple[Callable[[str], int], Callable[[str], list[int]], Callable[[list[int]], str]]:
        """(count, encode, decode) of the token counter this chunker uses."""
        return self._count, self._encode, self._decode

    def _units(self, block: _Block) -> list[_Unit]:
        text = "\n".join(block.lines)
        if block.kind == "fence":
            tokens = self._count(text)
            if tokens <= self.max_tokens:
                return [_Unit(block.start, block.end, text, tokens)]
        units: list[_Unit] = []
        for offset, line in enumerate(block.lines):
            if not line.strip():
                continue
            number = block.start + offset
            short = len(line) <= self.max_tokens * _LONG_LINE_CHARS_PER_TOKEN
            tokens = self._count(line) if short else self.max_tokens + 1
            if tokens <= self.max_tokens:
                units.append(_Unit(number, number, line, tokens))
            else:
                count, encode, decode = self.token_functions()
                units += _split_long_line(
                    line, number, self.max_tokens, count, encode, decode, self.should_stop
                )
        return units

    def chunk(self, path: str, text: str) -> list[Chunk]:
        """Chunks of one file's text, in file order (ChunkingStopped when `should_stop`)."""
        lines = [line.rstrip("\r") for line in text.split("\n")]
        chunks: list[Chunk] = []
        current: list[_Unit] = []
        headings: tuple[str, ...] = ()

        def emit() -> None:
            chunks.extend(_joined(path, current, headings))

        def flush_with_overlap(next_tokens: int) -> list[_Unit]:
            emit()
            carry = _overlap(current, self.overlap_tokens)  # dropped if the next cannot follow
            return carry if sum(u.tokens for u in carry) + next_tokens <= self.max_tokens else []

        has_body = False
        for number, block in enumerate(_parse_blocks(lines, self.should_stop), start=1):
            if number % 4096 == 0 and self.should_stop is not None and self.should_stop():
                raise ChunkingStopped
            if block.kind == "heading" and current and has_body:
                emit()
                current = []
                has_body = False
            headings = block.headings
            units = self._units(block)
            block_tokens = sum(u.tokens for u in units)
            used = sum(u.tokens for u in current)
            if (
                current
                and block_tokens <= self.max_tokens
                and used + block_tokens > self.max_tokens
            ):
                current = flush_with_overlap(block_tokens)
                used = sum(u.tokens for u in current)
            for unit in units:
                if current and used + unit.tokens > self.max_tokens:
                    current = flush_with_overlap(unit.tokens)
                    used = sum(u.tokens for u in current)
                current.append(unit)
                used += unit.tokens
            has_body = has_body or block.kind != "heading"
        if current:
            emit()
        return chunks


def _joined(path: str, units: list[_Unit], headings: tuple[str, ...]) -> list[Chunk]:
    """The chunk of `units` (a blank line where lines were skipped); none if it is blank."""
    parts: list[str] = []
    for k, unit in enumerate(units):
        if k and unit.start > units[k - 1].end + 1:
            parts.append("")
        parts.append(unit.text)
    body = "\n".join(parts)
    return [Chunk(path, units[0].start, units[-1].end, body, headings)] if body.strip() else []


def _overlap(units: list[_Unit], overlap_tokens: int) -> list[_Unit]:
    """The last units (never the first) within `overlap_tokens`: the next chunk starts with them."""
    carry: list[_Unit] = []
    total = 0
    for unit in reversed(units[1:]):
        if total + unit.tokens > overlap_tokens:
            break
        carry.insert(0, unit)
        total += unit.tokens
    return carry
