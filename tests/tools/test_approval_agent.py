"""The approval middleware and argument handling through a real agentscope Agent + fake LLM."""

from __future__ import annotations

import json
import tempfile
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from agentscope.agent import Agent, ContextConfig, InjectionConfig
from agentscope.message import UserMsg
from agentscope.tool import Toolkit

from remecli.config.settings import LLMSettings
from remecli.llm.agentscope_adapter import runtime_tool
from remecli.llm.agentscope_middleware import runtime_middlewares
from remecli.llm.model import build_chat_model
from remecli.notes.writer import MemoryWriter
from remecli.tools.approval import ApprovalMiddleware, ApprovalRequest, NoApprover
from remecli.tools.context import ToolContext
from remecli.tools.registry import build_tools
from tests.fakes.messages import tool_texts
from tests.tools.conftest import make_ctx

Answerer = Callable[[ApprovalRequest], Awaitable[str]]


class ScriptedUser:
    """Answers approval questions from a list and records them."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> str:
        self.asked.append(request)
        return self.answers.pop(0)


def make_agent(fake_llm, ctx: ToolContext, mode: str, user: Answerer) -> Agent:
    llm = LLMSettings(base_url=fake_llm.base_url, api_key="sk-test", model_name="fake-model")
    return Agent(
        name="ReMe",
        system_prompt="You are a test assistant.",
        model=build_chat_model(llm, context_size=32_000).agent_model(),
        toolkit=Toolkit(tools=[runtime_tool(tool) for tool in build_tools(ctx)]),
        middlewares=runtime_middlewares([ApprovalMiddleware(mode, ctx, user)]),
        context_config=ContextConfig(tool_result_limit=10**9),
        injection_config=InjectionConfig(inject_runtime_state=False),
    )


def tool_results(request_body: dict) -> list[str]:
    """The contents of the `tool` messages of a chat request."""
    return tool_texts(request_body)


@pytest.fixture
def project(workspace: Path) -> ToolContext:
    (workspace / "build").mkdir()
    (workspace / "build" / "out.o").write_text("obj")
    return make_ctx(workspace)


async def test_dangerous_mode_denied_call_returns_to_the_model(fake_llm, project) -> None:
    fake_llm.add_tool_calls([("bash", {"command": "echo safe"})])
    fake_llm.add_tool_calls([("bash", {"command": "rm -rf build"})])
    fake_llm.add_text("I will not delete it.")
    user = ScriptedUser("no")
    reply = await make_agent(fake_llm, project, "dangerous", user).reply(UserMsg("user", "go"))
    assert [r.tool_name for r in user.asked] == ["bash"]  # the safe call was not asked about
    assert user.asked[0].kind == "recursive-delete" and "rm -rf build" in json.dumps(
        user.asked[0].arguments
    )
    assert (project.workspace / "build" / "out.o").exists()
    third = fake_llm.chat_requests()[2].body
    results = tool_results(third)
    assert "safe" in results[0] and "Denied by user" in results[1]
    assert "I will not delete it." in str(reply.content)


async def test_yes_runs_the_call_once(fake_llm, project) -> None:
    fake_llm.add_tool_calls([("bash", {"command": "rm -rf build"})])
    fake_llm.add_tool_calls([("bash", {"command": "rm -r build2 || true"})])
    fake_llm.add_text("done")
    user = ScriptedUser("yes", "no")
    await make_agent(fake_llm, project, "dangerous", user).reply(UserMsg("user", "clean"))
    assert not (project.workspace / "build").exists()
    assert len(user.asked) == 2  # "yes" covered only the first call


async def test_always_covers_the_same_kind_for_the_session(fake_llm, project) -> None:
    (project.workspace / "dist").mkdir()
    fake_llm.add_tool_calls([("bash", {"command": "rm -rf build"})])
    fake_llm.add_tool_calls([("bash", {"command": "rm -rf dist"})])
    fake_llm.add_tool_calls([("bash", {"command": "git reset --hard"})])
    fake_llm.add_text("ok")
    user = ScriptedUser("always", "no")
    await make_agent(fake_llm, project, "dangerous", user).reply(UserMsg("user", "clean"))
    assert not (project.workspace / "build").exists() and not (project.workspace / "dist").exists()
    assert [r.kind for r in user.asked] == ["recursive-delete", "git-discard"]
    assert "Denied by user" in tool_results(fake_llm.chat_requests()[3].body)[-1]


async def test_always_does_not_cover_the_same_risk_outside_the_workspace(
    fake_llm, project, tmp_path
) -> None:
    outside = tmp_path / "outside-dir"
    outside.mkdir()
    fake_llm.add_tool_calls([("bash", {"command": "rm -rf build"})])
    fake_llm.add_tool_calls([("bash", {"command": f"rm -rf {outside}"})])
    fake_llm.add_text("ok")
    user = ScriptedUser("always", "no")
    middleware_agent = make_agent(fake_llm, project, "dangerous", user)
    await middleware_agent.reply(UserMsg("user", "clean"))
    assert outside.exists()  # asked again, and denied
    assert [r.kind for r in user.asked] == ["recursive-delete", "recursive-delete"]
    assert "inside the workspace" in user.asked[0].always_covers
    assert user.asked[1].always_covers == "this exact call again"


def test_reset_session_forgets_always_answers(project) -> None:
    from remecli.tools.approval import ApprovalMiddleware

    middleware = ApprovalMiddleware("dangerous", project, ScriptedUser())
    middleware.allowed_for_session.add(("bash", "recursive-delete", "the workspace"))
    middleware.reset_session()
    assert middleware.allowed_for_session == set()


async def test_always_mode_asks_for_writes_but_never_for_read_only_tools(fake_llm, project) -> None:
    fake_llm.add_tool_calls([("ls", {"path": "."}), ("read", {"path": "build/out.o"})])
    fake_llm.add_tool_calls([("write", {"path": "new.txt", "content": "hi"})])
    fake_llm.add_text("written")
    user = ScriptedUser("yes")
    await make_agent(fake_llm, project, "always", user).reply(UserMsg("user", "write"))
    assert [(r.tool_name, r.kind) for r in user.asked] == [("write", "any")]
    assert (project.workspace / "new.txt").read_text() == "hi"


async def test_never_mode_asks_nothing(fake_llm, project) -> None:
    fake_llm.add_tool_calls([("bash", {"command": "rm -rf build"})])
    fake_llm.add_text("gone")
    user = ScriptedUser()
    await make_agent(fake_llm, project, "never", user).reply(UserMsg("user", "x"))
    assert user.asked == [] and not (project.workspace / "build").exists()


async def test_bad_arguments_come_back_as_errors_and_the_loop_goes_on(fake_llm, project) -> None:
    (project.workspace / "f.txt").write_text("".join(f"l{i}\n" for i in range(1, 11)))
    fake_llm.add_tool_calls(
        [
            ("read", {"path": "f.txt", "offset": "3", "limit": 2.0}, "coerced"),
            ("read", {"path": "f.txt", "limit": "many"}, "not_number"),
            ("read", {"offset": 2}, "missing"),
            ("ls", {"path": ".", "colour": True}, "unknown"),
            ("read", {"path": "f.txt", "limit": 2.5}, "fraction"),
        ]
    )
    fake_llm.add_text("handled")
    reply = await make_agent(fake_llm, project, "dangerous", ScriptedUser()).reply(
        UserMsg("user", "x")
    )
    by_id = {
        m["tool_call_id"]: str(m["content"])
        for m in fake_llm.chat_requests()[1].body["messages"]
        if m["role"] == "tool"
    }
    coerced, not_number, missing, unknown, fraction = (
        by_id[key] for key in ("coerced", "not_number", "missing", "unknown", "fraction")
    )
    assert "l3" in coerced and "l4" in coerced and "l5" not in coerced
    assert "Input validation failed" in not_number and "limit" in not_number
    assert "path" in missing and "required" in missing
    assert "Unknown argument(s) `colour` for ls; it accepts: path, limit" in unknown
    assert "Input validation failed" in fraction and "2.5" in fraction
    assert "handled" in str(reply.content)
    assert fake_llm.violations == []


async def test_a_failing_prompt_denies_the_call(fake_llm, project) -> None:
    async def broken(request: ApprovalRequest) -> str:
        raise RuntimeError("no terminal")

    fake_llm.add_tool_calls([("write", {"path": "/etc/remecli-test", "content": "x"})])
    fake_llm.add_text("ok")
    agent = make_agent(fake_llm, project, "dangerous", broken)
    await agent.reply(UserMsg("user", "x"))
    [result] = tool_results(fake_llm.chat_requests()[1].body)
    assert "approval prompt failed (no terminal)" in result


def test_unknown_mode_is_refused(project) -> None:
    with pytest.raises(ValueError, match="never, dangerous or always"):
        ApprovalMiddleware("sometimes", project, ScriptedUser())  # type: ignore[arg-type]


@pytest.fixture
def escape(project: ToolContext, tmp_path: Path) -> Path:
    """A file outside the workspace, and `link.txt` in the workspace leading to it."""
    outside = tmp_path / "elsewhere" / "precious.txt"
    outside.parent.mkdir()
    outside.write_text("outside\n")
    (project.workspace / "link.txt").symlink_to(outside)
    return outside


async def test_never_mode_asks_before_write_follows_a_symlink_out(
    fake_llm, project, escape
) -> None:
    fake_llm.add_tool_calls([("write", {"path": "link.txt", "content": "overwritten\n"})])
    fake_llm.add_text("ok")
    user = ScriptedUser("no")
    await make_agent(fake_llm, project, "never", user).reply(UserMsg("user", "x"))
    assert [(r.tool_name, r.kind) for r in user.asked] == [("write", "outside-workspace")]
    assert user.asked[0].always_covers == "this exact call again"
    assert escape.read_text() == "outside\n"
    assert "Denied by user" in tool_results(fake_llm.chat_requests()[1].body)[0]


async def test_never_mode_asks_before_read_follows_a_symlink_out(fake_llm, project, escape) -> None:
    fake_llm.add_tool_calls([("read", {"path": "link.txt"}), ("read", {"path": "build/out.o"})])
    fake_llm.add_text("ok")
    user = ScriptedUser("no")
    await make_agent(fake_llm, project, "never", user).reply(UserMsg("user", "x"))
    assert [r.arguments["path"] for r in user.asked] == ["link.txt"]  # inside: not asked
    denied, shown = tool_results(fake_llm.chat_requests()[1].body)
    assert "Denied by user" in denied and "outside" not in denied.split("(")[0]
    assert "obj" in shown


async def test_never_mode_asks_before_writing_in_a_temp_folder(fake_llm, project) -> None:
    target = Path(tempfile.gettempdir()) / f"remecli-test-{uuid.uuid4().hex}.txt"
    fake_llm.add_tool_calls([("write", {"path": str(target), "content": "x"})])
    fake_llm.add_tool_calls([("write", {"path": str(target), "content": "y"})])
    fake_llm.add_text("ok")
    user = ScriptedUser("always", "no")  # "always" covers the exact call, not the next one
    try:
        await make_agent(fake_llm, project, "never", user).reply(UserMsg("user", "x"))
        assert [r.kind for r in user.asked] == ["outside-workspace"] * 2
        assert target.read_text() == "x"
    finally:
        target.unlink(missing_ok=True)


async def test_never_mode_still_writes_memory_files_unasked(fake_llm, workspace, tmp_path) -> None:
    ctx = make_ctx(workspace)
    ctx.working_dir = tmp_path / "wd"  # remecli's own folder, outside the workspace
    ctx.writer = MemoryWriter(ctx.working_dir)
    fake_llm.add_tool_calls(
        [("write", {"path": str(ctx.working_dir / "MEMORY.md"), "content": "m\n"})]
    )
    fake_llm.add_text("ok")
    user = ScriptedUser()
    await make_agent(fake_llm, ctx, "never", user).reply(UserMsg("user", "x"))
    assert user.asked == [] and (ctx.working_dir / "MEMORY.md").read_text() == "m\n"


async def test_no_one_to_ask_refuses_a_file_tool_leaving_the_workspace(
    fake_llm, project, escape
) -> None:
    async def nobody(request: ApprovalRequest) -> str:
        raise NoApprover("non-interactive")

    fake_llm.add_tool_calls([("write", {"path": "link.txt", "content": "overwritten\n"})])
    fake_llm.add_text("ok")
    agent = make_agent(fake_llm, project, "never", nobody)
    await agent.reply(UserMsg("user", "x"))
    [result] = tool_results(fake_llm.chat_requests()[1].body)
    assert "Refused" in result and "run remecli interactively" in result
    assert "move the file into the workspace" in result
    assert escape.read_text() == "outside\n"
