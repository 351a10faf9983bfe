"""The keyword engine's analysis: Porter stems, CJK bigrams, identifiers kept whole and split."""

from __future__ import annotations

from pathlib import Path

from remecli.search.analysis import make_analyzer, make_query_analyzer, query_terms
from remecli.search.keyword import Filters, KeywordDoc, KeywordIndex


def test_english_words_are_porter_stemmed_and_stop_worded() -> None:
    analyze = make_analyzer()
    assert analyze("The deploys were Running happily") == ["deploi", "were", "run", "happili"]
    assert query_terms(make_query_analyzer(), "were they running?") == ["run"]


def test_cjk_is_indexed_as_unigrams_and_bigrams_and_queried_as_bigrams() -> None:
    assert make_analyzer()("部署脚本") == ["部", "署", "脚", "本", "部署", "署脚", "脚本"]
    assert query_terms(make_analyzer(), "部署脚本") == ["部署", "署脚", "脚本"]
    assert query_terms(make_analyzer(), "猫 cat") == ["猫", "cat"]


def test_identifiers_are_kept_whole_and_split() -> None:
    assert make_analyzer()("see deploy-notes.md and src/app_main.py") == [
        "see",
        "deploy-notes.md",
        "deploi",
        "note",
        "md",
        "src/app_main.py",
        "src",
        "app",
        "main",
        "py",
    ]


def test_the_engine_matches_analyzed_terms_and_filters(tmp_path: Path) -> None:
    index = KeywordIndex(tmp_path / "kw")
    index.replace(
        [],
        [
            KeywordDoc(1, "a.md", "deploy-notes.md lists the steps", day=20250101),
            KeywordDoc(2, "b.md", "deploy notes are long, the notes of deploys", day=20250201),
            KeywordDoc(3, "s.jsonl", "部署脚本坏了", source="transcript", day=20250301),
        ],
        [],
    )
    assert [i for i, _ in index.search("deploy-notes.md", 5)][0] == 1
    assert sorted(i for i, _ in index.search("deploying", 5)) == [1, 2]
    assert [i for i, _ in index.search("脚本", 5)] == [3]
    assert [i for i, _ in index.search("deploy", 5, Filters(since=20250115))] == [2]
    assert [i for i, _ in index.search("部署 deploy", 5, Filters(source="transcript"))] == [3]
    index.replace(["b.md"], [], [1])
    assert index.doc_count() == 1 and index.search("deploy", 5) == []
    index.close()
