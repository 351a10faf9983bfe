"""`transcript_header`: a transcript chunk is embedded with its day and speakers first."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np

from remecli.search import MemoryIndex
from remecli.search.embedding_sync import embedding_text, transcript_header
from remecli.search.types import Chunk
from tests.search.fake_embedder import CharNgramEmbedder
from tests.search.helpers import settings

TURNS = [
    ("Caroline", "I went to the support group yesterday."),
    ("Melanie", "That sounds lovely: tell me more."),
    ("Caroline", "It was about transgender stories."),
]


def write_transcript(working_dir: Path) -> None:
    """One finished session of three turns on 8 May 2023 (quiet, so every chunk is embedded)."""
    path = working_dir / "sessions" / "s1.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    records = [
        {
            "t": "msg",
            "at": "2023-05-08T13:56:00",
            "msg": {"name": name, "role": "user", "id": f"m{k}", "content": text},
        }
        for k, (name, text) in enumerate(TURNS)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    quiet = time.time() - 3600
    os.utime(path, (quiet, quiet))


def test_the_header_names_the_day_in_words_and_each_speaker_once() -> None:
    text = "Caroline: hi\nmore of it\nMelanie: yes: really\nCaroline: ok"
    chunk = Chunk("sessions/s.jsonl", 1, 4, text, source="transcript", date="2023-05-08")
    assert transcript_header(chunk) == "Monday 8 May 2023 · Caroline, Melanie"
    assert embedding_text(chunk, "day+speakers") == f"Monday 8 May 2023 · Caroline, Melanie\n{text}"
    assert embedding_text(chunk, "speakers") == f"Caroline, Melanie\n{text}"
    assert embedding_text(chunk, "day") == f"Monday 8 May 2023\n{text}"
    assert embedding_text(chunk) == text
    note = Chunk("memory/a.md", 1, 1, "Caroline: hi", date="2023-05-08")
    assert embedding_text(note, "day+speakers") == "Caroline: hi"  # notes have their headings


def test_the_index_embeds_transcript_chunks_with_the_header_when_asked(tmp_path: Path) -> None:
    embedder = CharNgramEmbedder()
    vectors = {}
    for header in ("none", "day+speakers"):
        folder = tmp_path / f"header-{header}"
        write_transcript(folder)
        index = MemoryIndex.open(folder, settings(transcript_header=header), embedder=embedder)
        try:
            index.sync_blocking()
            (stored,) = index.store.chunks_of("sessions/s1.jsonl")
            _, matrix = index.store.vectors_of([stored.id])
            assert matrix is not None
            vectors[header] = matrix[0]
            expected = embedding_text(stored.chunk, header)
            assert np.allclose(matrix[0], embedder.embed_documents([expected])[0])
        finally:
            index.close()
    assert transcript_header(stored.chunk) == "Monday 8 May 2023 · Caroline, Melanie"
    assert not np.allclose(vectors["none"], vectors["day+speakers"])
