"""Tool results reach the model whole while the context has room (issue 21, defect 1)."""

from __future__ import annotations

import asyncio
import json
import re

from remecli.agent import events as ev
from tests.agent.conftest import collect
from tests.fakes.messages import tool_texts
from tests.fakes.turns import ToolCallsTurn, make_tool_calls
from tests.memory.conftest import checkpoint, is_compaction


def numbered_file(lines: int, width: int = 50) -> str:
    """`lines` distinct lines of about `width` characters each."""
    return "".join(
        f"line {n:04d} " + f"payload-{n}-" * (width // 12) + "\n" for n in range(1, lines + 1)
    )


async def test_an_80_line_4kb_file_reaches_the_model_whole(
    assistant_factory, fake_llm, tmp_path
) -> None:
    text = numbered_file(80)
    assert 3_500 < len(text) < 5_000
    (tmp_path / "notes.txt").write_text(text)
    fake_llm.add_tool_calls([("read", {"path": "notes.txt"})])
    fake_llm.add_text("Read it.")
    assistant = assistant_factory("tools.approval=never")
    await collect(assistant, "read notes.txt")
    [result] = tool_texts(fake_llm.chat_requests()[1].body)
    for number, line in enumerate(text.splitlines(), start=1):
        assert f"{number}\t{line}" in result
    assert "omitted" not in result and "[Full content saved to:" not in result
    assert not list((tmp_path / ".reme" / "tool_result").glob("*.txt"))
    await assistant.close()


async def test_memory_search_with_five_hits_reaches_the_model_whole(
    assistant_factory, fake_llm, tmp_path
) -> None:
    memory = tmp_path / ".reme" / "memory"
    memory.mkdir(parents=True)
    for day in range(1, 6):
        filler = " ".join(f"detail{day}x{i}" for i in range(40))
        (memory / f"2026-01-0{day}.md").write_text(
            f"# 2026-01-0{day}\n\n- The staging database moved to db-{day}.internal. {filler}\n"
        )
    assistant = assistant_factory()
    await assistant.start()
    await asyncio.wait_for(assistant.memory.index_ready.wait(), timeout=30)
    fake_llm.add_tool_calls(
        [("memory_search", {"query": "staging database", "max_results": 5, "min_score": 0})]
    )
    fake_llm.add_text("Five places.")
    events = await collect(assistant, "where did it move?")
    [done] = [e for e in events if isinstance(e, ev.ToolFinished)]
    [result] = tool_texts(fake_llm.chat_requests()[1].body)
    assert result == done.output and len(result) > 1_100  # what the tool found, all of it
    hits = json.loads(result)
    assert len(hits) == 5
    assert len({h["path"] for h in hits if h["path"].startswith("memory/2026-01-0")}) >= 4
    await assistant.close()


def _reference(body: dict) -> tuple[str, int, str]:
    """The saved file, the first omitted line and the text of the offloaded result in `body`."""
    for result in tool_texts(body):
        found = re.search(r"\[Full content saved to: ([^\]]+)\]", result)
        if found:
            offset = re.search(r"`read` it with offset=(\d+)", result)
            assert offset, result
            return found.group(1), int(offset.group(1)), result
    raise AssertionError("no offloaded result in the request")


async def test_under_pressure_a_result_is_offloaded_and_readable_page_by_page(
    assistant_factory, fake_llm, tmp_path
) -> None:
    text = numbered_file(400)
    (tmp_path / "big.txt").write_text(text)
    fake_llm.add_tool_calls([("read", {"path": "big.txt"})])
    fake_llm.add_text("Read it.")
    assistant = assistant_factory("tools.approval=never", "max_input_length=200000")
    await collect(assistant, "read big.txt")
    assert text.splitlines()[200] in tool_texts(fake_llm.chat_requests()[1].body)[0]
    # the context passes the threshold: the old result is offloaded, not compacted
    assistant.update_params(memory_compact_ratio=(assistant.context_usage().tokens - 500) / 200_000)
    pages: list[str] = []
    state: dict = {"offset": 0, "path": "", "compactions": 0}

    def next_step(body: dict) -> object:
        if is_compaction(body):  # reading every page fills the context again at the end
            state["compactions"] += 1
            return checkpoint("pages")
        if not state["path"]:
            state["path"], state["offset"], preview = _reference(body)
            pages.append(preview)  # head and tail stay in the context
        else:
            pages.append(tool_texts(body)[-1])
            if "Use offset=" not in pages[-1]:
                return "I have read all of it."
            state["offset"] += 120
        args = {"path": state["path"], "offset": state["offset"], "limit": 120}
        return ToolCallsTurn(calls=make_tool_calls([("read", args)]))

    fake_llm.set_fallback(next_step)
    events = await collect(assistant, "go through the whole file")
    [offloaded] = [e for e in events if isinstance(e, ev.ToolResultOffloaded)]
    assert offloaded.tool_name == "read" and offloaded.chars > len(text)
    assert state["path"].startswith(".reme/tool_result/")
    seen = "\n".join(pages)
    for line in text.splitlines():
        assert line in seen, line  # every line reached the model: preview and pages
    assert len(pages) >= 4
    for page in pages[1:]:  # the saved file's lines come back as they are, never cut again
        assert "omitted" not in page and "[Full content saved to:" not in page
    assert fake_llm.violations == []
    await assistant.close()
