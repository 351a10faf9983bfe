"""A transcript's readable page (`sessions/<id>.md`) is not a second copy in search: the index reads
the transcript's lines once, from the JSONL, and never the page."""

from __future__ import annotations

from pathlib import Path

from remecli.conversation.transcript_page import page_path
from remecli.search import MemoryIndex, SearchRequest
from tests.search.helpers import settings
from tests.search.test_transcripts import _records, write_session


async def test_the_page_is_not_indexed_beside_its_transcript(working_dir: Path) -> None:
    transcript = write_session(working_dir, "abc123", _records())
    page = page_path(transcript)
    assert "We painted the gazebo teal" in page.read_text(encoding="utf-8")
    index = MemoryIndex.open(working_dir, settings())
    try:
        report = await index.sync()
        assert report.files_seen == 3  # MEMORY.md, the day note, the transcript
        hits = await index.search(SearchRequest(query="gazebo teal", max_results=10))
        assert [hit.path for hit in hits] == ["sessions/abc123.jsonl"]
        assert "sessions/abc123.md" not in {**index.memory_files(), **index.transcript_files()}
    finally:
        index.close()
