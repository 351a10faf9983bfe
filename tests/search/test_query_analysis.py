"""Query analysis: function words are dropped from keyword queries, unless nothing else is left."""

from __future__ import annotations

from pathlib import Path

from remecli.search import MemoryIndex, SearchRequest
from remecli.search.analysis import make_analyzer, make_query_analyzer, query_terms
from tests.search.helpers import settings

CHATTY = "What did they do? What did she say about it? They did what they could do.\n"
DEPLOY = "The billing deploy failed on Friday and was rolled back.\n"


def test_query_drops_function_words_and_contraction_pieces() -> None:
    terms = query_terms(
        make_query_analyzer(), "What did Caroline's friends say when they didn't go?"
    )
    assert terms == ["carolin", "friend", "sai", "go"]
    # The index keeps question words and pronouns, so a fallback can still match them.
    assert "what" in query_terms(make_analyzer(), "What did they do?")


def test_chinese_and_identifiers_are_untouched_by_the_query_stop_list() -> None:
    assert query_terms(make_query_analyzer(), "deploy-notes.md 部署脚本") == query_terms(
        make_analyzer(), "deploy-notes.md 部署脚本"
    )


async def test_question_words_do_not_outrank_the_content_word(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "chatty.md").write_text(CHATTY, encoding="utf-8")
    (tmp_path / "memory" / "deploy.md").write_text(DEPLOY, encoding="utf-8")
    index = MemoryIndex.open(tmp_path, settings())
    try:
        await index.sync()
        results = await index.search(
            SearchRequest(query="What did they do about the deploy?", max_results=5)
        )
        assert [r.path for r in results] == ["memory/deploy.md"]
        fallback = await index.search(SearchRequest(query="what did they do", max_results=5))
        assert [r.path for r in fallback] == ["memory/chatty.md"]
    finally:
        index.close()
