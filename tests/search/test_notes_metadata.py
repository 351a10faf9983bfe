"""Frontmatter (name, description, tags) searchable and shown; date and source filters; dedup."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from remecli.__main__ import main
from remecli.conversation.transcript import Transcript
from remecli.notes.frontmatter import NoteInfo, note_info, read_frontmatter
from remecli.search import MemoryIndex, SearchRequest
from tests.search.helpers import settings
from tests.search.test_transcripts import _user, write_session

CARD = """---
name: Espresso machine
description: Which grinder settings the user likes
tags: [coffee, kitchen]
date: 2025-03-04
---
# Settings
Grind size 8 with a 25 second shot.
"""


def _write(root: Path, rel: str, text: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text, encoding="utf-8")


def split_frontmatter(text: str, rel: str) -> tuple[NoteInfo, str]:
    """What the index keeps of a note: its fields and its text with the frontmatter blanked."""
    note = read_frontmatter(text)
    return note_info(note, rel), note.blanked()


def test_frontmatter_is_parsed_and_blanked_keeping_line_numbers() -> None:
    info, body = split_frontmatter(CARD, "memory/2025-01-01/espresso.md")
    assert (info.name, info.tags, info.date) == (
        "Espresso machine",
        ("coffee", "kitchen"),
        "2025-03-04",
    )
    assert body.splitlines()[6] == "# Settings" and not "".join(body.splitlines()[:6]).strip()
    assert split_frontmatter("# No front\n", "memory/2025-01-02.md")[0].date == "2025-01-02"
    broken = "---\nname: [unclosed\n---\ntext\n"
    assert split_frontmatter(broken, "MEMORY.md") == (split_frontmatter("", "MEMORY.md")[0], broken)


async def test_frontmatter_fields_are_searchable_weighted_and_returned(tmp_path: Path) -> None:
    _write(tmp_path, "memory/2025-03-04/espresso.md", CARD)
    _write(tmp_path, "digest/wiki/cafe.md", "# Cafe\nThe cafe sells espresso and tea.\n")
    index = MemoryIndex.open(tmp_path, settings())
    try:
        await index.sync()
        hits = await index.search(SearchRequest(query="espresso", max_results=5))
        assert [h.path for h in hits] == ["memory/2025-03-04/espresso.md", "digest/wiki/cafe.md"]
        assert [
            h.path for h in await index.search(SearchRequest(query="coffee", max_results=5))
        ] == [hits[0].path]
        data = hits[0].to_dict()
        assert (data["name"], data["tags"], data["date"]) == (
            "Espresso machine",
            ["coffee", "kitchen"],
            "2025-03-04",
        )
        assert data["description"] == "Which grinder settings the user likes"
        assert (hits[0].start_line, hits[0].end_line) == (7, 8)
    finally:
        index.close()


async def test_date_filters_use_the_frontmatter_date_then_the_path_date(tmp_path: Path) -> None:
    _write(tmp_path, "memory/2025-01-05.md", "# Day\nThe heron came back.\n")
    _write(tmp_path, "memory/2025-02-10/birds.md", "---\ndate: 2025-02-11\n---\nA heron again.\n")
    _write(tmp_path, "MEMORY.md", "# Facts\nThe heron is grey.\n")
    index = MemoryIndex.open(tmp_path, settings())
    try:
        await index.sync()

        async def paths(**filters) -> list[str]:
            return sorted(
                h.path
                for h in await index.search(
                    SearchRequest(query="heron", max_results=10, min_score=0.0, **filters)
                )
            )

        assert len(await paths()) == 3
        assert await paths(since="2025-02-01") == ["memory/2025-02-10/birds.md"]
        assert await paths(until="2025-02-10") == ["memory/2025-01-05.md"]
        assert await paths(since="2025-01-05", until="2025-02-11") == [
            "memory/2025-01-05.md",
            "memory/2025-02-10/birds.md",
        ]
        with pytest.raises(ValueError, match="since must be a date"):
            await index.search(SearchRequest(query="heron", since="last week"))
    finally:
        index.close()


async def test_source_filter_and_a_quoted_passage_does_not_crowd_the_top(tmp_path: Path) -> None:
    said = "We decided the lighthouse trip happens in June with the red kayak and two tents"
    write_session(tmp_path, "s9", [Transcript.message_record(_user(said))])
    _write(tmp_path, "memory/2025-05-01.md", f"# Trip\n- user said: {said}\n")
    _write(tmp_path, "MEMORY.md", "# Boats\nThe red kayak leaks a little.\n")
    index = MemoryIndex.open(tmp_path, settings())
    try:
        await index.sync()
        both = await index.search(SearchRequest(query="lighthouse trip kayak", max_results=5))
        assert [h.path for h in both] == ["memory/2025-05-01.md", "MEMORY.md"] or [
            h.path for h in both
        ] == ["sessions/s9.jsonl", "MEMORY.md"]
        assert {
            h.source
            for h in await index.search(SearchRequest(query="kayak", max_results=5, source="notes"))
        } == {"notes"}
        only = await index.search(SearchRequest(query="kayak", max_results=5, source="transcripts"))
        assert [(h.source, h.session_id) for h in only] == [("transcript", "s9")]
    finally:
        index.close()


def test_cli_source_and_date_options(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.delenv("REME_EMBEDDING_API_KEY", raising=False)
    write_session(tmp_path, "s1", [Transcript.message_record(_user("the ibis flew north"))])
    _write(tmp_path, "memory/2024-12-31/ibis.md", CARD.replace("Espresso", "Ibis"))
    base = [f"working_dir={tmp_path}", "search.embedding.backend=none", "--json"]
    assert main(["search", "ibis", "--source", "transcripts", *base]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert [(h["source"], h["path"]) for h in hits] == [("transcript", "sessions/s1.jsonl")]
    assert main(["search", "ibis", "--source=notes", "--until", "2025-03-04", *base]) == 0
    assert [h["name"] for h in json.loads(capsys.readouterr().out)] == ["Ibis machine"]
    assert main(["search", "ibis", "--since", "yesterday", *base]) == 2
    assert main(["search", "ibis", "--source", "mail", *base]) == 2
    assert main(["search", "ibis", f"working_dir={tmp_path}", "search.embedding.backend=none"]) == 0
    out = capsys.readouterr().out
    assert "Ibis machine — Which grinder settings the user likes" in out
    assert "tags: coffee, kitchen" in out and "(transcript" in out


@pytest.mark.parametrize(
    ("text", "line", "body"),
    [
        ("\ufeff---\r\nname: A\r\n---\r\nbody\r\n", 4, "body\r\n"),
        ("---\nname: A\n...\nbody", 4, "body"),
        ("---\nname: A\n---", 4, ""),
        ("---\n---\nbody\n", 1, "---\n---\nbody\n"),  # empty: all body
        ("---\n- a list\n---\nbody\n", 1, "---\n- a list\n---\nbody\n"),
        ("---\ndate: 2025-13-45\n---\nbody\n", 1, "---\ndate: 2025-13-45\n---\nbody\n"),
        ("---\nname: never closed\n", 1, "---\nname: never closed\n"),
        ("# Title\n---\nname: A\n---\n", 1, "# Title\n---\nname: A\n---\n"),
    ],
)
def test_frontmatter_tolerates_bom_crlf_and_bad_blocks(text: str, line: int, body: str) -> None:
    note = read_frontmatter(text)
    assert (note.body_start_line, note.body) == (line, body)
    assert bool(note.meta) == note.has_frontmatter


def test_a_long_frontmatter_is_found_past_the_first_lines() -> None:
    text = "---\n" + "".join(f"key{i}: {i}\n" for i in range(300)) + "---\nbody\n"
    note = read_frontmatter(text)
    assert (len(note.meta), note.body_start_line, note.body) == (300, 303, "body\n")


@hypothesis_settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "---",
                "...",
                "----",
                "name: A",
                "tags: [a, b",
                "- item",
                "",
                "date: 2025-99-01",
                "body [[x]]",
                "    ---",
                "\ufeff---",
                "a: b\r",
                "---\r",
                ": :",
                "{}",
            ]
        ),
        max_size=10,
    )
)
def test_any_text_reads_without_error_and_keeps_its_line_numbers(lines: list[str]) -> None:
    text = "\n".join(lines)
    note = read_frontmatter(text)
    assert text.endswith(note.body)
    head = text[: len(text) - len(note.body)]
    assert head.count("\n") == note.body_start_line - 1 or (head and not note.body)
    assert note.has_frontmatter == (note.body_start_line > 1) and not (note.meta and note.problem)
