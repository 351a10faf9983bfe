"""Tool-result offload: head + tail + file reference in the context, full output to the UI."""

from __future__ import annotations

import os
import time
from pathlib import Path

from remecli.conversation.tool_results import ToolResultStore
from remecli.notes.layout import WorkingDir
from tests.memory.conftest import Script, text_tool, tool_calls, words


def test_offload_keeps_head_and_tail_and_saves_the_full_text(tmp_path) -> None:
    store = ToolResultStore(tmp_path / "tool_result", threshold=1000)
    assert store.offload("ls", "short") == "short"
    text = "HEAD" + "m" * 3000 + "TAIL"
    kept, path = store.offload_detail("bash", text)
    assert kept.startswith("HEAD") and "TAIL\n[Full content saved to: " in kept
    assert kept.endswith(f"[Full content saved to: tool_result/{path.name}]")
    assert len(kept) < 1200
    saved = path.read_text(encoding="utf-8")
    assert saved.startswith("tool: bash\ncreated: ") and saved.endswith(text)
    assert store.offload("bash", kept) == kept  # never offloaded twice


def test_reference_is_relative_to_display_root_or_absolute(tmp_path) -> None:
    store = ToolResultStore(tmp_path / ".reme" / "tool_result", display_root=tmp_path)
    kept = store.offload("x", "y" * 2000)
    assert "[Full content saved to: .reme/tool_result/" in kept
    elsewhere = ToolResultStore(tmp_path / "a", display_root=tmp_path / "b")
    assert f"[Full content saved to: {tmp_path / 'a'}" in elsewhere.offload("x", "y" * 2000)


def test_retention_cleanup_removes_only_old_files(tmp_path) -> None:
    folder = tmp_path / "tool_result"
    store = ToolResultStore(folder, threshold=100, retention_days=7)
    old = store.save("old", "o")
    recent = store.save("recent", "r")
    eight_days_ago = time.time() - 8 * 86_400
    os.utime(old, (eight_days_ago, eight_days_ago))
    (folder / "notes.md").write_text("not ours")
    assert store.cleanup() == 1
    assert not old.exists() and recent.exists() and (folder / "notes.md").exists()
    # each offload cleans up too
    older = store.save("older", "o")
    os.utime(older, (eight_days_ago, eight_days_ago))
    store.offload("bash", "z" * 500)
    assert not older.exists()
    # retention_days=0 keeps everything
    keep_all = ToolResultStore(folder, retention_days=0)
    os.utime(recent, (eight_days_ago, eight_days_ago))
    assert keep_all.cleanup() == 0 and recent.exists()


async def test_agent_context_gets_reference_while_ui_events_get_full_output(
    rig_factory, fake_llm, tmp_path
) -> None:
    full = words(600)
    tool = text_tool("dump", lambda kw: full)
    Script(fake_llm, steps=[tool_calls(("dump", {"path": "big.log"})), "summarized it"])
    rig = rig_factory(tools=[tool], max_input_length=50_000)
    expired = WorkingDir(tmp_path / ".reme").tool_result_dir / "expired.txt"
    expired.parent.mkdir(parents=True)
    expired.write_text("old")
    os.utime(expired, (time.time() - 30 * 86_400,) * 2)
    await rig.mw.start()
    assert not expired.exists()  # cleanup at start

    events = await rig.ask("dump the log")
    streamed = "".join(e.delta for e in events if type(e).__name__ == "ToolResultTextDeltaEvent")
    assert streamed == full  # the UI sees everything
    [end] = [e for e in events if type(e).__name__ == "ToolResultEndEvent"]
    saved = end.metadata["offloaded_to"]
    assert Path(saved).read_text(encoding="utf-8").endswith(full)
    sent = fake_llm.last_messages()
    [tool_msg] = [m for m in sent if m["role"] == "tool"]
    assert "[Full content saved to: tool_result/" in tool_msg["content"]
    assert len(tool_msg["content"]) < 1300
    notices = [n for n in rig.notices if type(n).__name__ == "ToolResultOffloaded"]
    assert notices and notices[0].chars == len(full)


async def test_old_oversized_results_are_offloaded_before_compacting(rig_factory, fake_llm) -> None:
    big = words(400)
    tool = text_tool("dump", lambda kw: big)
    script = Script(fake_llm, steps=[tool_calls(("dump", {"path": "a"})), "first done"])
    # a high threshold at first: the result enters the context whole
    rig = rig_factory(
        tools=[tool],
        tool_result_threshold=100_000,
        max_input_length=6_000,
        memory_compact_ratio=0.9,
    )
    await rig.ask("dump it")
    assert big in str(rig.agent.state.context[-1].content)
    assert rig.mw.session.context_tokens() > 1_500
    # then the threshold drops (e.g. changed settings): the next check offloads it, no compaction
    rig.mw.store.threshold = 1000
    rig.mw.update_params(memory_compact_ratio=0.25)
    script.add("second done")
    await rig.ask("and now?")
    assert script.compactions == []
    context_text = str([b for m in rig.agent.state.context for b in m.content])
    assert big not in context_text and "[Full content saved to:" in context_text
    assert not rig.mw.session.over_threshold()


def test_offload_messages_for_the_library_api(tmp_path) -> None:
    from agentscope.message import Msg, ToolCallBlock, ToolResultBlock

    from remecli.conversation.tool_results import offload_messages

    reply = Msg(
        name="ReMe",
        role="assistant",
        content=[
            ToolCallBlock(id="a", name="cat", input="{}"),
            ToolResultBlock(id="a", name="cat", output="q" * 5000, state="success"),
            ToolCallBlock(id="b", name="cat", input="{}"),
            ToolResultBlock(id="b", name="cat", output="small", state="success"),
        ],
    )
    store = ToolResultStore(tmp_path / "tool_result")
    assert offload_messages(store, [reply]) == 1
    assert "[Full content saved to: tool_result/" in reply.content[1].output
    assert reply.content[3].output == "small"
    assert len(list((tmp_path / "tool_result").iterdir())) == 1
