"""Tool-result offload: head + tail + file reference in the context, full output to the UI."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from remecli.conversation.tool_results import ToolResultStore, offload_order
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


async def test_a_long_result_reaches_the_model_whole_while_the_context_has_room(
    rig_factory, fake_llm, tmp_path
) -> None:
    full = words(600)
    tool = text_tool("dump", lambda kw: full)
    Script(fake_llm, steps=[tool_calls(("dump", {"path": "big.log"})), "summarized it"])
    rig = rig_factory(tools=[tool], max_input_length=50_000)
    await rig.ask("dump the log")
    [tool_msg] = [m for m in fake_llm.last_messages() if m["role"] == "tool"]
    assert tool_msg["content"] == full
    assert not [n for n in rig.notices if type(n).__name__ == "ToolResultOffloaded"]
    assert not (tmp_path / ".reme" / "tool_result").exists() or not list(
        (tmp_path / ".reme" / "tool_result").iterdir()
    )


async def test_agent_context_gets_reference_while_ui_events_get_full_output(
    rig_factory, fake_llm, tmp_path
) -> None:
    full = words(600)
    tool = text_tool("dump", lambda kw: full)
    Script(fake_llm, steps=[tool_calls(("dump", {"path": "big.log"})), "summarized it"])
    # a small window: the result alone passes the compaction threshold
    rig = rig_factory(tools=[tool], max_input_length=6_000, memory_compact_ratio=0.2)
    expired = WorkingDir(tmp_path / ".reme").tool_result_dir / "expired.txt"
    expired.parent.mkdir(parents=True)
    expired.write_text("old")
    os.utime(expired, (time.time() - 30 * 86_400,) * 2)
    await rig.mw.start()
    assert not expired.exists()  # cleanup at start

    events = await rig.ask("dump the log")
    streamed = "".join(e.delta for e in events if type(e).__name__ == "ToolResultTextDeltaEvent")
    assert streamed == full  # the UI sees everything
    [notice] = [n for n in rig.notices if type(n).__name__ == "ToolResultOffloaded"]
    assert notice.chars == len(full)
    assert Path(notice.path).read_text(encoding="utf-8").endswith(full)
    sent = fake_llm.last_messages()
    [tool_msg] = [m for m in sent if m["role"] == "tool"]
    assert "[Full content saved to: tool_result/" in tool_msg["content"]
    assert len(tool_msg["content"]) < 1300


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


def test_preview_names_the_omitted_lines_of_the_saved_file(tmp_path) -> None:
    store = ToolResultStore(tmp_path / "tool_result", threshold=1000)
    lines = [f"{n}\tline {n:03d} " + "x" * 40 for n in range(1, 81)]
    text = "\n".join(lines) + "\n"
    kept, path = store.offload_detail("read", text)
    assert path is not None
    head, rest = kept.split("\n…[", 1)
    mark, tail_and_ref = rest.split("]…\n", 1)
    tail = tail_and_ref.rsplit("\n[Full content saved to: ", 1)[0]
    assert head.splitlines() == lines[: len(head.splitlines())]  # whole lines only
    assert tail.splitlines() == lines[-len(tail.splitlines()) :]
    found = re.search(r"lines (\d+)-(\d+) of the saved file, `read` it with offset=(\d+)", mark)
    assert found, mark
    first, last, offset = (int(g) for g in found.groups())
    assert offset == first
    saved = path.read_text(encoding="utf-8").splitlines()
    omitted = lines[len(head.splitlines()) : len(lines) - len(tail.splitlines())]
    assert saved[first - 1 : last] == omitted  # the named lines are exactly what was left out


def test_a_result_that_cannot_be_saved_stays_whole(tmp_path) -> None:
    blocked = tmp_path / "tool_result"
    blocked.write_text("a file where the folder should be")
    store = ToolResultStore(blocked, threshold=1000)
    text = "z" * 5000
    assert store.offload_detail("bash", text) == (text, None)  # never cut and unreachable


def _entry(role: str, *blocks: Any) -> Any:
    return SimpleNamespace(ctx=None, msg=SimpleNamespace(role=role, content=list(blocks)))


def _result(call_id: str, name: str, chars: int) -> Any:
    return SimpleNamespace(type="tool_result", id=call_id, name=name, output="r" * chars)


def _call(call_id: str, name: str, path: str) -> Any:
    return SimpleNamespace(
        type="tool_call", id=call_id, name=name, input=json.dumps({"path": path})
    )


def test_offload_order_earlier_turns_largest_first_then_current_oldest_first(tmp_path) -> None:
    store = ToolResultStore(tmp_path / ".reme" / "tool_result", display_root=tmp_path)
    small, big = _result("a", "dump", 2000), _result("b", "dump", 9000)
    reread = _result("c", "read", 20000)
    first, second = _result("d", "dump", 3000), _result("e", "dump", 8000)
    entries = [
        ("u1", _entry("user")),
        ("r1", _entry("assistant", _call("a", "dump", "x"), small, _call("b", "dump", "y"), big)),
        ("r2", _entry("assistant", _call("c", "read", ".reme/tool_result/0f.txt"), reread)),
        ("u2", _entry("user")),
        ("r3", _entry("assistant", first, second)),
    ]
    candidates = [("r1", small), ("r1", big), ("r2", reread), ("r3", first), ("r3", second)]
    order = offload_order(candidates, entries, store)
    assert [b.id for _mid, b in order] == ["b", "a", "d", "e"]  # the re-read never


async def test_pressure_offloads_earlier_turns_largest_first_and_never_a_reread(
    rig_factory, fake_llm
) -> None:
    texts = {"small": words(300, 1), "big": words(1200, 2), "now": words(900, 3)}
    dump = text_tool("dump", lambda kw: texts[kw["path"]])
    holder: dict = {}
    reader = text_tool("read", lambda kw: (holder["root"] / kw["path"]).read_text())
    script = Script(
        fake_llm, steps=[tool_calls(("dump", {"path": "small"}), ("dump", {"path": "big"})), "ok"]
    )
    rig = rig_factory(tools=[dump, reader], max_input_length=50_000, memory_compact_ratio=0.9)
    holder["root"] = rig.mw.store.display_root
    count = rig.mw.counter.count
    await rig.ask("dump small and big")
    # the next result pushes the context past the threshold by less than `big` frees
    threshold = rig.mw.session.context_tokens() + count(texts["now"]) - count(texts["big"]) // 2
    rig.mw.update_params(memory_compact_ratio=threshold / 50_000)
    script.add(tool_calls(("dump", {"path": "now"})), "done")
    await rig.ask("dump now")
    results = [m["content"] for m in fake_llm.last_messages() if m["role"] == "tool"]
    assert results[0] == texts["small"] and results[2] == texts["now"]
    assert "[Full content saved to: tool_result/" in results[1]
    [notice] = [n for n in rig.notices if type(n).__name__ == "ToolResultOffloaded"]
    assert notice.chars == len(texts["big"]) and script.compactions == []
    after = rig.notices[rig.notices.index(notice) + 1]  # the meter shows what it freed
    assert type(after).__name__ == "ContextUsage" and after.tokens <= after.threshold
    # the model reads the saved file back: that result is never offloaded into another cut
    reference = re.search(r"\[Full content saved to: ([^\]]+)\]", results[1]).group(1)
    rig.mw.update_params(memory_compact_ratio=0.9)
    script.add(tool_calls(("read", {"path": reference})), "read it")
    await rig.ask("read the rest")
    assert (
        texts["big"] in [m["content"] for m in fake_llm.last_messages() if m["role"] == "tool"][-1]
    )
    rig.mw.update_params(memory_compact_ratio=(rig.mw.session.context_tokens() - 100) / 50_000)
    script.add("fine")
    await rig.ask("anything else?")
    offloaded = [n for n in rig.notices if type(n).__name__ == "ToolResultOffloaded"]
    assert [n.chars for n in offloaded] == [len(texts["big"]), len(texts["now"])]
    sent = [m["content"] for m in fake_llm.last_messages() if m["role"] == "tool"]
    assert texts["big"] in sent[-1] and script.compactions == []


async def test_a_resumed_result_whose_file_expired_is_saved_again(
    rig_factory, fake_llm, tmp_path
) -> None:
    full = words(600)
    tool = text_tool("dump", lambda kw: full)
    Script(fake_llm, steps=[tool_calls(("dump", {"path": "big.log"})), "summarized it"])
    rig = rig_factory(tools=[tool], max_input_length=6_000, memory_compact_ratio=0.2)
    await rig.ask("dump the log")
    [notice] = [n for n in rig.notices if type(n).__name__ == "ToolResultOffloaded"]
    Path(notice.path).unlink()  # removed after retention_days while the conversation slept
    rig.mw.conversation.lock.release()
    fresh = rig_factory(tools=[tool])
    state = await fresh.mw.restore("last")
    [kept] = [
        b.output if isinstance(b.output, str) else b.output[0].text
        for m in state.context
        for b in m.content
        if b.type == "tool_result"
    ]
    saved = fresh.mw.store.saved_file(kept)
    assert saved is not None and saved != Path(notice.path)
    assert saved.read_text(encoding="utf-8").endswith(full)  # the preview is readable again
