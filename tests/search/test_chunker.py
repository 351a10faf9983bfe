"""Properties of the Markdown chunker."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from remecli.config.search import SearchSettings
from remecli.search.chunker import ChunkingStopped, MarkdownChunker


def _word_count(text: str) -> int:
    return len(text.split()) + text.count("\n")


CHUNKER = MarkdownChunker(max_tokens=40, overlap_tokens=10, counter=_word_count)
DEFAULTS = SearchSettings()


def _default_chunker() -> MarkdownChunker:
    return MarkdownChunker(DEFAULTS.chunk_tokens, DEFAULTS.chunk_overlap)


word = st.sampled_from(["alpha", "beta", "gamma", "delta", "部署", "脚本", "x1", "deploy.md"])
sentence = st.lists(word, min_size=1, max_size=12).map(" ".join)
heading = st.tuples(st.integers(1, 3), sentence).map(lambda t: "#" * t[0] + " " + t[1])
item = sentence.map(lambda s: "- " + s)
fence = st.lists(sentence, min_size=0, max_size=6).map(
    lambda lines: "\n".join(["```", *lines, "```"])
)
long_line = st.lists(sentence, min_size=8, max_size=20).map(". ".join)
block = st.one_of(heading, sentence, item, fence, long_line, st.just(""))
document = st.lists(block, min_size=0, max_size=25).map("\n".join)


def _fences(lines: list[str]) -> list[tuple[int, int]]:
    spans, start = [], None
    for number, line in enumerate(lines, start=1):
        if line.startswith("```"):
            if start is None:
                start = number
            else:
                spans.append((start, number))
                start = None
    return spans


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document)
def test_chunks_cover_every_line_in_order_and_are_not_empty(text: str) -> None:
    chunks = CHUNKER.chunk("memory/a.md", text)
    lines = text.split("\n")
    covered = {n for c in chunks for n in range(c.start_line, c.end_line + 1)}
    for number, line in enumerate(lines, start=1):
        if line.strip():
            assert number in covered, f"line {number} {line!r} not in any chunk"
    starts = [c.start_line for c in chunks]
    assert starts == sorted(starts)
    for chunk in chunks:
        assert 1 <= chunk.start_line <= chunk.end_line <= len(lines)
        assert chunk.text.strip()
        assert chunk.path == "memory/a.md"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document)
def test_fences_that_fit_are_never_split(text: str) -> None:
    lines = text.split("\n")
    chunks = CHUNKER.chunk("a.md", text)
    for start, end in _fences(lines):
        if _word_count("\n".join(lines[start - 1 : end])) > CHUNKER.max_tokens:
            continue
        touching = [c for c in chunks if c.start_line <= end and c.end_line >= start]
        assert touching, "a fence must be in some chunk"
        for chunk in touching:
            assert chunk.start_line <= start and chunk.end_line >= end, "fence split"


def test_real_token_counter_respects_the_budget_and_overlaps() -> None:
    chunker = MarkdownChunker(max_tokens=60, overlap_tokens=15)
    text = "# Log\n" + "\n".join(
        f"Line {n}: we talked about topic {n} at length." for n in range(40)
    )
    chunks = chunker.chunk("memory/log.md", text)
    assert len(chunks) > 3
    for chunk in chunks:
        assert chunker._count(chunk.text) <= 60 + chunk.text.count("\n")
        assert chunk.headings == ("Log",)
    assert any(b.start_line <= a.end_line for a, b in zip(chunks, chunks[1:], strict=False))


def test_headings_start_chunks_and_track_the_heading_path() -> None:
    text = "# Project\n## Deploy\nsteps here\n## Backups\nnightly at 2am\n"
    chunks = _default_chunker().chunk("MEMORY.md", text)
    assert [(c.start_line, c.end_line, c.headings) for c in chunks] == [
        (1, 3, ("Project", "Deploy")),
        (4, 5, ("Project", "Backups")),
    ]


def test_a_heading_of_megabytes_enters_each_chunk_cut_short() -> None:
    """A setext heading can be a paragraph of any size (a broken 2 MB YAML frontmatter closed by
    `---` is one); each chunk below it repeats its heading path, so an uncut heading made
    indexing such a file quadratic (a 2 MB file took over three minutes)."""
    paragraph = "".join(f"{' ' * (k % 3)}line {k} of a long setext heading\n" for k in range(20000))
    text = paragraph + "---\n\n" + "".join(f"- item {k} after it\n" for k in range(400))
    chunks = CHUNKER.chunk("memory/deep.md", text)
    below = [c for c in chunks if c.headings]
    assert len(below) > 5
    assert all(len(c.heading_path) <= 200 for c in below), max(len(c.heading_path) for c in below)
    assert below[-1].headings[0].startswith("line 0 of a long setext heading")


def test_an_overlong_line_is_split_at_sentences_on_the_same_line_number() -> None:
    line = " ".join(f"Sentence number {n} says something." for n in range(200))
    chunks = MarkdownChunker(max_tokens=50, overlap_tokens=0).chunk("a.md", f"intro\n{line}\n")
    assert len(chunks) > 5
    assert {c.start_line for c in chunks[1:]} == {2}
    assert all(re.search(r"Sentence number \d+", c.text) for c in chunks[1:])


def test_blank_text_has_no_chunks() -> None:
    assert _default_chunker().chunk("a.md", "\n  \n\n") == []


def _one_huge_line(size: int) -> str:
    words = ["alpha", "beta", "gamma", "delta", "deploy", "script", "x1"]
    line = " ".join(words[n % len(words)] + str(n % 97) for n in range(size // 8))
    return f"# MEMORY\n\n{line}\n"


def test_one_huge_line_is_tokenized_in_bounded_pieces_about_once() -> None:
    """Issue 39.2: a one-line 10 MB MEMORY.md took minutes and GBs; each tokenizer call now
    sees a bounded slice and the line's characters are tokenized about once in all."""
    chunker = MarkdownChunker(DEFAULTS.chunk_tokens, DEFAULTS.chunk_overlap)
    count, encode, _ = chunker.token_functions()
    seen: list[int] = []

    def counting(text: str) -> int:
        seen.append(len(text))
        return count(text)

    def encoding(text: str) -> list[int]:
        seen.append(len(text))
        return encode(text)

    chunker._count, chunker._encode = counting, encoding
    text = _one_huge_line(1_000_000)
    chunks = chunker.chunk("MEMORY.md", text)
    assert max(seen) <= 64 * 1024, max(seen)
    assert sum(seen) <= 3 * len(text), (sum(seen), len(text))
    assert {c.start_line for c in chunks[1:]} == {3}
    assert " ".join(c.text for c in chunks[1:]).split()[-1] == text.split()[-1]
    assert max(chunker._count(c.text) for c in chunks) <= DEFAULTS.chunk_tokens + 8


def test_a_closing_index_stops_chunking_inside_one_huge_line() -> None:
    chunker = _default_chunker()
    asked: list[bool] = []

    def closing_after_the_first_look() -> bool:
        asked.append(True)
        return len(asked) > 1

    chunker.should_stop = closing_after_the_first_look
    with pytest.raises(ChunkingStopped):
        chunker.chunk("MEMORY.md", _one_huge_line(300_000))
