"""The transcript weight ranks notes against transcripts; among transcripts alone it changes
nothing (both sides of the fusion are weighed alike)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from remecli.search import MemoryIndex, SearchRequest
from tests.search.fake_embedder import CharNgramEmbedder
from tests.search.helpers import settings

SESSIONS = {
    "a": ["We hiked up the ridge trail on Saturday.", "The ridge was windy but clear."],
    "b": ["I adopted a puppy named Pixel.", "Pixel loves the hiking trail too."],
    "c": ["My pottery class fired a vase.", "Glazing pottery takes patience."],
    "d": ["Trail running shoes wore out.", "I bought new shoes for the trail race."],
}


def _write_sessions(folder: Path) -> None:
    (folder / "sessions").mkdir()
    quiet = time.time() - 3600  # finished sessions: every chunk gets a vector
    for name, texts in SESSIONS.items():
        lines = []
        for k, text in enumerate(texts):
            msg = {"name": "Ann" if k % 2 == 0 else "Bo", "role": "user", "id": f"{name}{k}"}
            msg["content"] = [{"type": "text", "text": text}]
            lines.append(json.dumps({"t": "msg", "at": "2025-01-02T10:00:00", "msg": msg}))
        path = folder / "sessions" / f"{name}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        os.utime(path, (quiet, quiet))


def _ranked(folder: Path, weight: float, query: str) -> list[tuple[str, float]]:
    index = MemoryIndex.open(
        folder,
        settings(transcript_weight=weight, chunk_tokens=16, file_diversity=0.0),
        embedder=CharNgramEmbedder(),
    )
    try:
        index.sync_blocking()
        return [
            (h.path, h.score)
            for h in index.search_blocking(SearchRequest(query=query, max_results=4, min_score=0.0))
        ]
    finally:
        index.close()


def test_among_transcripts_alone_the_weight_keeps_the_order(tmp_path: Path) -> None:
    _write_sessions(tmp_path)
    for query in ("hiking trail with the puppy", "trail shoes", "pottery vase glazing"):
        full = _ranked(tmp_path, 1.0, query)
        weighed = _ranked(tmp_path, 0.6, query)
        assert [p for p, _ in weighed] == [p for p, _ in full], query
        assert [round(s, 6) for _, s in weighed] == [round(0.6 * s, 6) for _, s in full]
