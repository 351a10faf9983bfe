"""The default offline embedder (e5-small on onnxruntime): paraphrases, Chinese too."""

from __future__ import annotations

from pathlib import Path

import pytest

from remecli.search import LocalE5Embedder, MemoryIndex, SearchRequest
from remecli.search.types import SearchVariant
from tests.search.helpers import settings

pytestmark = pytest.mark.local_model

NOTES = {
    "memory/2025-03-01.md": "# Morning\nStarted the day with oatmeal and blueberries, then coffee.\n",
    "memory/2025-03-02.md": "# Car\nThe mechanic replaced the brake pads on the old Volvo.\n",
    "memory/2025-03-03.md": "# 运动\n我每天早上在公园里跑五公里，然后做拉伸。\n",
    "memory/2025-03-04.md": "# 工作\n下周要把数据库迁移到新的云服务商。\n",
    "memory/2025-03-05.md": "# Trip\nBooked flights to Lisbon for the conference in June.\n",
}

QUERIES = {
    "what did I eat for breakfast": "memory/2025-03-01.md",
    "vehicle maintenance": "memory/2025-03-02.md",
    "我的锻炼习惯是什么": "memory/2025-03-03.md",  # shares no character bigram with the note
    "服务器搬家计划": "memory/2025-03-04.md",
    "travel plans to Portugal": "memory/2025-03-05.md",
}


async def test_local_model_finds_paraphrases_by_meaning_alone(tmp_path: Path) -> None:
    for rel, text in NOTES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    index = MemoryIndex.open(tmp_path, settings(embedding={"backend": "local"}))
    assert isinstance(index.embedder, LocalE5Embedder)
    try:
        report = await index.sync()
        assert report.chunks_embedded == 5 and not report.embedding_error
        for query, expected in QUERIES.items():
            request = SearchRequest(query=query, max_results=1, min_score=0.0)
            vector_only = index.search_variant_blocking(
                request, SearchVariant(index.settings, use_keyword=False)
            )
            assert [r.path for r in vector_only] == [expected], query
            hybrid = await index.search(SearchRequest(query=query, max_results=1))
            assert hybrid[0].path == expected, query
            assert "vector" in hybrid[0].signals
    finally:
        index.close()
