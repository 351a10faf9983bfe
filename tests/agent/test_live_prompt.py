"""The system prompt follows MEMORY.md between turns and across /new, and stays byte-identical
while nothing it says changed (so providers' prompt caches stay warm)."""

from __future__ import annotations

from remecli.agent.live_prompt import LivePrompt
from tests.agent.conftest import collect


def _system_text(request) -> str:
    message = request.body["messages"][0]
    assert message["role"] == "system"
    content = message["content"]
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content)
    return content


async def test_a_fact_written_to_memory_md_reaches_the_next_turn(
    assistant_factory, fake_llm, tmp_path
) -> None:
    assistant = assistant_factory()
    for answer in ("one", "two", "three", "four"):
        fake_llm.add_text(answer)
    await collect(assistant, "hello")
    memory_md = tmp_path / ".reme" / "MEMORY.md"
    memory_md.write_text("# MEMORY\n\n- The user's cat is called Quasar-42.\n")
    await collect(assistant, "what is my cat called?")
    await collect(assistant, "and again?")
    first, second, third = (_system_text(r) for r in fake_llm.chat_requests())
    assert "Quasar-42" not in first
    assert "Quasar-42" in second
    assert third == second  # nothing changed: the very same prompt
    async for _ in assistant.new_conversation():
        pass
    memory_md.write_text("# MEMORY\n\n- The user's cat is called Nebula-7.\n")
    await collect(assistant, "new topic")
    fourth = _system_text(fake_llm.chat_requests()[-1])
    assert "Nebula-7" in fourth and "Quasar-42" not in fourth
    await assistant.close()


async def test_memory_search_is_listed_in_the_prompt_it_is_offered_in(
    assistant_factory, fake_llm
) -> None:
    assistant = assistant_factory()
    fake_llm.add_text("ok")
    await collect(assistant, "hi")
    request = fake_llm.chat_requests()[0]
    offered = {tool["function"]["name"] for tool in request.body["tools"]}
    listed = {
        line.split("`")[1] for line in _system_text(request).splitlines() if line.startswith("- `")
    }
    assert "memory_search" in offered
    assert offered <= listed
    await assistant.close()


def test_the_prompt_is_rebuilt_only_when_memory_md_or_the_conversation_changes(tmp_path) -> None:
    memory_md = tmp_path / "MEMORY.md"
    memory_md.write_text("a\n")
    stamps = []

    def render(now):
        stamps.append(now)
        return f"prompt: {memory_md.read_text()}"

    live = LivePrompt(render, memory_md)
    assert live.refresh("s1") and live.current() == "prompt: a\n"
    assert not live.refresh("s1")
    memory_md.write_text("ab\n")
    assert live.refresh("s1") and live.current() == "prompt: ab\n"
    assert stamps[-1] == stamps[-2]  # same conversation: same time stamp
    assert live.refresh("s2") and stamps[-1] >= stamps[-2]
    assert not live.refresh("s2")


def test_a_huge_memory_md_enters_the_prompt_capped_by_tokens(tmp_path) -> None:
    from remecli.agent.system_prompt import memory_head
    from remecli.llm.tokens import get_token_counter

    counter = get_token_counter()
    memory_md = tmp_path / "MEMORY.md"
    memory_md.write_text("# MEMORY\n\n- " + "lorem ipsum dolor " * 400_000 + "\n")  # ~7 MB, 1 line
    head = memory_head(memory_md, max_lines=200, max_tokens=500, count=counter.count)
    assert counter.count(head) < 600
    assert "only its head is shown" in head and "bytes" in head
    small = tmp_path / "small.md"
    small.write_text("# MEMORY\n\n- likes tea\n")
    text = memory_head(small, max_lines=200, max_tokens=500, count=counter.count)
    assert text.endswith("- likes tea") and "only its head" not in text


def test_the_prompt_carries_current_claims_and_says_what_it_left_out(tmp_path) -> None:
    from remecli.agent.system_prompt import memory_head

    memory_md = tmp_path / "MEMORY.md"
    memory_md.write_text(
        "# MEMORY\n\n- Lives in Berlin (since 2026-03-02)\n"
        '- ~~Lives in Munich~~ (2024-05-01 to 2026-03-02, replaced by "Lives in Berlin")\n'
        "- ~~Drives a Golf~~ (until 2025-01-01)\n- Likes tea\n"
    )
    head = memory_head(memory_md, max_lines=200)
    assert "Berlin" in head and "tea" in head
    assert "Munich" not in head and "Golf" not in head
    assert "2 superseded claims left out" in head and "`read` MEMORY.md" in head
