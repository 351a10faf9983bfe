"""The fake LLM calls every tool in turn through the real agent; each result reaches the model."""

from __future__ import annotations

from remecli.agent import events as ev
from tests.agent.conftest import collect
from tests.fakes.messages import tool_texts


async def test_each_tool_runs_and_its_result_reaches_the_model(
    assistant_factory, fake_llm, tavily, tmp_path
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("print('hello')\n")
    url = f"http://127.0.0.1:{tavily.server_address[1]}"
    calls = [
        ("ls", {"path": "src"}, "app.py"),
        ("read", {"path": "src/app.py"}, "print('hello')"),
        ("write", {"path": "notes/todo.md", "content": "- ship it\n"}, "bytes"),
        (
            "edit",
            {"path": "notes/todo.md", "old_text": "ship it", "new_text": "ship it today"},
            "today",
        ),
        ("bash", {"command": "cat notes/todo.md && echo done-$((6*7))"}, "done-42"),
        ("execute_code", {"code": "print(sum(range(10)))"}, "45"),
        ("web_search", {"query": "remecli"}, "http"),
    ]
    for name, args, _ in calls:
        fake_llm.add_tool_calls([(name, args)])
    fake_llm.add_text("All tools worked.")
    assistant = assistant_factory(
        "tools.approval=never", "tools.tavily_api_key=tvly-test", f"tools.tavily_base_url={url}"
    )
    events = await collect(assistant, "exercise every tool")
    finished = [e for e in events if isinstance(e, ev.ToolFinished)]
    assert [e.name for e in finished] == [c[0] for c in calls]
    assert all(e.state == "success" for e in finished), [(e.name, e.output[:200]) for e in finished]
    requests = fake_llm.chat_requests()
    assert len(requests) == len(calls) + 1
    for i, (name, _, needle) in enumerate(calls):
        results = tool_texts(requests[i + 1].body)
        assert needle in results[-1], (name, results[-1][:300])
    assert (tmp_path / "notes" / "todo.md").read_text() == "- ship it today\n"
    assert fake_llm.violations == []
