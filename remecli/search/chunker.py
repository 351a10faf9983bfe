"""Markdown-aware chunking: headings, paragraphs, list items and code fences, packed by tokens.

Blocks come from markdown-it-py (CommonMark, the parser rich ships), with their source lines.

Each chunk knows its file, 1-based inclusive line range and heading path. A heading starts a new
chunk; blocks are packed up to `max_tokens`; when a chunk fills up, the next one repeats up to
`overlap_tokens` of its tail. A fenced code block that fits is never split; longer blocks are cut
at line boundaries and over-long lines at sentence (then token) boundaries.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from markdown_it import MarkdownIt

from remecli.search.types import Chunk

_MARKDOWN = MarkdownIt("commonmark")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s*")


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


def _parse_blocks(lines: list[str]) -> list[_Block]:
    """Markdown blocks from markdown-it-py's token stream, tracking the heading path of each.

    Leaf blocks keep their source lines (`token.map`); a list item stops where a nested item,
    fence or heading starts; lines no token covers (link definitions, …) become paragraphs.
    """
    tokens = _MARKDOWN.parse("\n".join(lines))
    spans: list[tuple[int, int, str, str, int]] = []  # start, end (exclusive), kind, title, level
    item_starts: list[int] = []
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
            item_starts.append(len(spans) - 1)
        elif token.type in ("paragraph_open", "html_block", "hr", "table_open", "code_block"):
            spans.append((start, end, "para", "", 0))
    spans.sort(key=lambda s: (s[0], s[2] != "item"))
    owned = [False] * len(lines)
    blocks_at: list[tuple[int, int, str, str, int]] = []
    for index, (start, end, kind, title, level) in enumerate(spans):
        if kind == "item":
            later = [s[0] for s in spans[index + 1 :] if start < s[0] < end and s[2] != "para"]
            end = min([end, *later])
        if any(owned[start:end]) and kind == "para":
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
    blocks: list[_Block] = []
    stack: list[tuple[int, str]] = []
    for start, end, kind, title, level in blocks_at:
        if kind == "heading":
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title.strip()))
        blocks.append(_Block(kind, start + 1, lines[start:end], tuple(t for _, t in stack)))
    return blocks


def _split_long_line(
    text: str,
    number: int,
    max_tokens: int,
    count: Callable[[str], int],
    encode: Callable[[str], list[int]],
    decode: Callable[[list[int]], str],
) -> list[_Unit]:
    """Cut one over-long line at sentence ends, and sentences still too long at token windows."""
    pieces: list[str] = []
    for sentence in (s for s in _SENTENCE_END.split(text) if s.strip()):
        if count(sentence) <= max_tokens:
            pieces.append(sentence)
        else:
            ids = encode(sentence)
            pieces += [decode(ids[k : k + max_tokens]) for k in range(0, len(ids), max_tokens)]
    units: list[_Unit] = []
    buffer = ""
    for piece in pieces:
        candidate = f"{buffer} {piece}".strip() if buffer else piece
        if buffer and count(candidate) > max_tokens:
            units.append(_Unit(number, number, buffer, count(buffer)))
            buffer = piece
        else:
            buffer = candidate
    if buffer.strip():
        units.append(_Unit(number, number, buffer, count(buffer)))
    return units


class MarkdownChunker:
    """Turns a Markdown text into token-bounded chunks (see the module docstring)."""

    def __init__(
        self,
        max_tokens: int = 400,
        overlap_tokens: int = 80,
        counter: Callable[[str], int] | None = None,
    ) -> None:
        from remecli.llm.tokens import get_token_counter

        token_counter = get_token_counter()
        self.max_tokens = max_tokens
        self.overlap_tokens = min(overlap_tokens, max_tokens // 2)
        self._count = counter or token_counter.count
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
            tokens = self._count(line)
            if tokens <= self.max_tokens:
                units.append(_Unit(number, number, line, tokens))
            else:
                units += _split_long_line(
                    line, number, self.max_tokens, self._count, self._encode, self._decode
                )
        return units

    def chunk(self, path: str, text: str) -> list[Chunk]:
        """Chunks of one file's text, in file order."""
        lines = [line.rstrip("\r") for line in text.split("\n")]
        chunks: list[Chunk] = []
        current: list[_Unit] = []
        headings: tuple[str, ...] = ()

        def emit() -> None:
            parts: list[str] = []
            for k, unit in enumerate(current):
                if k and unit.start > current[k - 1].end + 1:
                    parts.append("")
                parts.append(unit.text)
            body = "\n".join(parts)
            if body.strip():
                chunks.append(Chunk(path, current[0].start, current[-1].end, body, headings))

        def flush_with_overlap(next_tokens: int) -> list[_Unit]:
            emit()
            carry: list[_Unit] = []
            total = 0
            for unit in reversed(current[1:]):
                if total + unit.tokens > self.overlap_tokens:
                    break
                carry.insert(0, unit)
                total += unit.tokens
            if total + next_tokens > self.max_tokens:
                return []
            return carry

        has_body = False
        for block in _parse_blocks(lines):
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
