"""Issue 39.1: with tools.approval=never and no one to ask (a `-p` run without a terminal), a
file tool whose real path is outside the workspace is refused, saying what to do instead."""

from __future__ import annotations

from remecli.agent import events as ev
from tests.agent.conftest import collect
from tests.fakes.messages import tool_texts


async def test_non_interactive_never_mode_refuses_writing_through_a_symlink_out(
    assistant_factory, fake_llm, tmp_path, tmp_path_factory
) -> None:
    outside = tmp_path_factory.mktemp("elsewhere") / "precious.txt"
    outside.write_text("keep me\n")
    (tmp_path / "innocent.txt").symlink_to(outside)
    (tmp_path / "inside.txt").write_text("inside\n")
    fake_llm.add_tool_calls([("write", {"path": "innocent.txt", "content": "overwritten\n"})])
    fake_llm.add_tool_calls([("read", {"path": str(outside)})])
    fake_llm.add_tool_calls([("read", {"path": "inside.txt"})])
    fake_llm.add_text("I could not.")
    assistant = assistant_factory("tools.approval=never")  # approvals=False: nobody to ask
    events = await collect(assistant, "fill innocent.txt")
    assert outside.read_text() == "keep me\n" and (tmp_path / "innocent.txt").is_symlink()
    assert not any(isinstance(e, ev.ApprovalRequest) for e in events)
    requests = fake_llm.chat_requests()
    write_result = tool_texts(requests[1].body)[-1]
    read_result = tool_texts(requests[2].body)[-1]
    for result in (write_result, read_result):
        assert "Refused" in result and "outside the workspace" in result, result
        assert (
            "run remecli interactively" in result and "move the file into the workspace" in result
        )
    assert "keep me" not in read_result
    assert "inside" in tool_texts(requests[3].body)[-1]  # inside the workspace: no question
