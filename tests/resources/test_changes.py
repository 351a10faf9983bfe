"""A resource's card follows the file: updated in place on change, left alone when unchanged;
files it cannot use are refused with a message saying what to do, before any model call."""

from __future__ import annotations

import asyncio

from remecli.knowledge.cards.card import read_meta
from remecli.knowledge.resources.extract import MAX_INPUT_CHARS, MAX_RESOURCE_BYTES
from tests.resources.conftest import answer, drop, resource_cards, resource_text


async def test_a_changed_file_updates_its_card_and_an_unchanged_one_is_not_resummarized(
    cards, fake_llm
) -> None:
    rel = drop(cards, "team.yaml", "lead: ana\n")
    fake_llm.add_text(answer("Team roster", "Who leads the team: Ana.", "lead is ana"))
    first = await cards.ingest(rel)
    assert first.status == "created"
    root = cards.layout.root
    old_hash = read_meta(root / first.card)["resource_sha256"]

    again = await cards.ingest(rel)
    assert again.status == "unchanged" and again.card == first.card
    assert len(fake_llm.chat_requests()) == 1  # no second model call

    drop(cards, "team.yaml", "lead: li\ndeputy: ana\n")
    fake_llm.add_text(answer("New team lead", "Li now leads the team; Ana is deputy.", "li"))
    second = await cards.ingest(rel)
    assert second.status == "updated" and second.card == first.card  # same card, renamed topic
    assert "lead: li" in resource_text(fake_llm.chat_requests()[1].body)
    found = resource_cards(root)
    assert [path for path, _ in found] == [first.card]
    meta = found[0][1]
    assert meta["name"] == "New team lead" and meta["resource_sha256"] != old_hash
    history = cards_history(root, first.card)
    assert history == ["resource", "resource"]


def cards_history(root, card: str) -> list[str]:
    from remecli.notes.writer import MemoryWriter

    return [version.source for version in MemoryWriter(root).history(root / card)]


async def test_two_resources_with_the_same_topic_get_two_cards(cards, fake_llm) -> None:
    for name in ("a.txt", "b.txt"):
        drop(cards, name, f"{name} talks about the deploy.\n")
        fake_llm.add_text(answer("Deploy", "How the deploy works, in short."))
    first = await cards.ingest("resource/a.txt")
    second = await cards.ingest("resource/b.txt")
    assert first.card != second.card and second.card.endswith("deploy-2.md")
    assert (await cards.ingest("resource/a.txt")).status == "unchanged"


async def test_a_binary_file_is_refused_without_a_model_call(cards, fake_llm) -> None:
    rel = drop(cards, "photo.json", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    outcome = await cards.ingest(rel)
    assert outcome.status == "refused" and "binary" in outcome.message
    assert "only text files" in outcome.message and fake_llm.chat_requests() == []


async def test_a_file_over_the_limit_is_refused_with_what_to_do(cards, fake_llm) -> None:
    rel = drop(cards, "dump.txt", "x" * (MAX_RESOURCE_BYTES + 1))
    outcome = await cards.ingest(rel)
    assert outcome.status == "refused" and "split it" in outcome.message
    assert fake_llm.chat_requests() == [] and resource_cards(cards.layout.root) == []


async def test_a_long_file_is_shown_as_head_and_tail(cards, fake_llm) -> None:
    lines = [f"line {number:06d} of the log" for number in range(20_000)]
    rel = drop(cards, "big.md", "\n".join(lines) + "\n")
    fake_llm.add_text(answer("Big log", "A long log of numbered lines."))
    outcome = await cards.ingest(rel)
    assert outcome.status == "created" and "left out" in outcome.message
    seen = resource_text(fake_llm.chat_requests()[0].body)
    assert lines[0] in seen and lines[-1] in seen and lines[10_000] not in seen
    assert "characters left out" in seen and len(seen) < MAX_INPUT_CHARS + 200
    assert "the middle was left out" in str(fake_llm.chat_requests()[0].body)


async def test_a_broken_json_file_names_the_line(cards, fake_llm) -> None:
    rel = drop(cards, "bad.json", '{\n  "a": 1,\n  "b": \n}\n')
    outcome = await cards.ingest(rel)
    assert outcome.status == "refused" and "not valid JSON (line 4" in outcome.message
    assert fake_llm.chat_requests() == []


async def test_a_gbk_text_file_is_decoded(cards, fake_llm) -> None:
    text = "我们每周五用 make ship 部署到预发环境，负责人是李雷。数据库使用 PostgreSQL 16。\n" * 3
    rel = drop(cards, "部署.txt", text.encode("gbk"))
    fake_llm.add_text(answer("部署流程", "每周五部署到预发环境，负责人李雷。"))
    assert (await cards.ingest(rel)).status == "created"
    assert "负责人是李雷" in resource_text(fake_llm.chat_requests()[0].body)


async def test_two_runtimes_ingesting_one_file_make_one_card(cards, fake_llm) -> None:
    """Like the app's watcher and `remecli ingest` at once: the second waits, then finds the card."""
    from remecli.knowledge.resources.cards import ResourceCards
    from remecli.notes.writer import MemoryWriter

    rel = drop(cards, "shared.md", "# Shared\n\nBoth saw this file.\n")
    own_writer = MemoryWriter.from_settings(cards.layout.root, cards.settings.memory)
    other = ResourceCards(cards.layout, cards.settings, cards._model_getter, own_writer)
    fake_llm.add_text(answer("Shared file", "A file two runtimes saw at once."), delay=0.5)
    fake_llm.add_text(answer("Shared file again", "Must not be asked for."))
    first, second = await asyncio.gather(cards.ingest(rel), other.ingest(rel))
    assert sorted([first.status, second.status]) == ["created", "unchanged"]
    assert len(resource_cards(cards.layout.root)) == 1 and len(fake_llm.chat_requests()) == 1


async def test_chinese_cards(cards, fake_llm) -> None:
    cards.settings = cards.settings.with_changes({"language": "zh"})
    rel = drop(cards, "会议.md", "# 周会\n\n决定：下周三发布 2.0。\n")
    fake_llm.add_text(answer("周会决定", "周会决定下周三发布 2.0 版本。", "下周三发布"))
    outcome = await cards.ingest(rel)
    assert outcome.card is not None and outcome.card.endswith("/周会决定.md")
    system = fake_llm.chat_requests()[0].body["messages"][0]["content"]
    assert "用中文书写" in system
    text = (cards.layout.root / outcome.card).read_text(encoding="utf-8")
    assert "## 要点\n- 下周三发布" in text and "## 来源\n- [[resource/会议.md]]" in text
