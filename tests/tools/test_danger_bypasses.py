"""Approval bypasses found by the fault-injection study: each now asks (default `dangerous`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from remecli.tools.approval import ApprovalMiddleware
from remecli.tools.context import ToolContext
from remecli.tools.danger import classify
from tests.tools.conftest import make_ctx


@pytest.fixture
def ctx(workspace: Path, tmp_path: Path) -> ToolContext:
    context = make_ctx(workspace)
    context.scratch_dirs = (tmp_path / "scratch",)
    return context


BYPASSES = [
    ("x=rm; $x -rf ~/dir", "indirect-command"),
    ("$(echo rm) -rf ~/dir", "indirect-command"),
    ("`echo rm` -rf ~/dir", "indirect-command"),
    ('cmd=rm && "$cmd" -rf ~/dir', "indirect-command"),
    ("FOO=1 $tool --wipe", "indirect-command"),
    ("mv src /dev/null", "delete"),
    ("crontab -r", "crontab"),
    ("crontab my-jobs.txt", "crontab"),
    ("pkill python", "kill-processes"),
    ("killall -9 node", "kill-processes"),
    ("kill -9 -1", "kill-processes"),
    ("docker system prune -af", "container-data"),
    ("docker volume prune", "container-data"),
    ("podman volume rm data", "container-data"),
    ("cat ~/.aws/credentials", "secret-read"),
    ("base64 $HOME/.ssh/id_ed25519", "secret-read"),
    ("cp ~/.netrc notes.txt", "secret-read"),
    ("echo `cat ~/.git-credentials`", "secret-read"),
]

STILL_SAFE = [
    "cat ~/.ssh/id_rsa.pub",
    "ls ~/.aws",
    "crontab -l",
    "kill 12345",
    "docker ps -a",
    "docker run --rm alpine echo hi",
    "mv old.txt new.txt",
    "echo '$x -rf'",
    "ls $(pwd)",
    'git commit -m "$(cat msg.txt)"',
    "x=$(date); echo $x",
    "echo 'unbalanced",  # bash refuses it too: nothing would run
]


@pytest.mark.parametrize(("command", "kind"), BYPASSES)
def test_bypass_now_asks(ctx: ToolContext, command: str, kind: str) -> None:
    found = classify("bash", {"command": command}, ctx)
    assert found is not None and found.kind == kind, (command, found)


@pytest.mark.parametrize("command", STILL_SAFE)
def test_near_misses_stay_unasked(ctx: ToolContext, command: str) -> None:
    assert classify("bash", {"command": command}, ctx) is None, command


def test_a_line_the_classifier_cannot_read_but_bash_runs_asks(ctx: ToolContext) -> None:
    tricky = "echo $'it\\'s' && rm notes.txt"  # ANSI-C quoting: bash parses, shlex does not
    found = classify("bash", {"command": tricky}, ctx)
    assert found is not None and found.kind == "unparsed"


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.txt").write_text("outside data\n")
    return outside


def test_writes_through_symlinks_out_of_the_workspace_ask(ctx: ToolContext, tmp_path: Path) -> None:
    outside = _outside(tmp_path)
    (ctx.workspace / "dirlink").symlink_to(outside)
    (ctx.workspace / "filelink").symlink_to(outside / "secret.txt")
    (ctx.workspace / "dangling").symlink_to(outside / "new.txt")
    for call in (
        ("write", {"path": "filelink", "content": "x"}),
        ("edit", {"path": "filelink", "old_text": "a", "new_text": "b"}),
        ("write", {"path": "dirlink/new.txt", "content": "x"}),
        ("write", {"path": "dangling", "content": "x"}),
        ("bash", {"command": "echo x > filelink"}),
        ("bash", {"command": "echo x >> dirlink/log.txt"}),
        ("bash", {"command": "cp notes.txt dangling"}),
    ):
        found = classify(call[0], call[1], ctx)
        assert found is not None and found.kind == "outside-workspace", call


def test_read_through_a_symlink_out_of_the_workspace_asks(ctx: ToolContext, tmp_path: Path) -> None:
    outside = _outside(tmp_path)
    (ctx.workspace / "link.txt").symlink_to(outside / "secret.txt")
    (ctx.workspace / "dirlink").symlink_to(outside)
    (ctx.workspace / "inside.txt").write_text("ok\n")
    (ctx.workspace / "inner").symlink_to(ctx.workspace / "inside.txt")
    assert classify("read", {"path": "link.txt"}, ctx).kind == "outside-workspace"
    assert classify("read", {"path": "dirlink/secret.txt"}, ctx).kind == "outside-workspace"
    assert classify("ls", {"path": "dirlink"}, ctx).kind == "outside-workspace"
    assert classify("read", {"path": "inner"}, ctx) is None
    assert classify("read", {"path": "inside.txt"}, ctx) is None
    assert classify("read", {"path": str(outside / "secret.txt")}, ctx).kind == "outside-workspace"


def test_read_of_a_secret_file_asks(ctx: ToolContext) -> None:
    found = classify("read", {"path": "~/.aws/credentials"}, ctx)
    assert found is not None and found.kind == "secret-read"
    public = classify("read", {"path": "~/.ssh/id_rsa.pub"}, ctx)
    assert public is not None and public.kind == "outside-workspace"  # not a secret; outside


async def test_approval_asks_for_a_read_only_tool_that_leaves_the_workspace(
    ctx: ToolContext, tmp_path: Path
) -> None:
    from agentscope.permission import PermissionBehavior, PermissionDecision

    outside = _outside(tmp_path)
    (ctx.workspace / "link.txt").symlink_to(outside / "secret.txt")
    asked: list[str] = []

    async def ask(request) -> str:
        asked.append(request.reason)
        return "no"

    class _Tool:
        name = "read"
        is_read_only = True

    async def passthrough(**_: object) -> PermissionDecision:
        return PermissionDecision(behavior=PermissionBehavior.ASK, message="ask")

    from remecli.llm.agentscope_middleware import runtime_middlewares

    [middleware] = runtime_middlewares([ApprovalMiddleware("dangerous", ctx, ask)])
    denied = await middleware.on_check_permission(
        None, {"tool": _Tool(), "tool_input": {"path": "link.txt"}}, passthrough
    )
    assert denied.behavior == PermissionBehavior.DENY and asked and "symlink" in asked[0]
    allowed = await middleware.on_check_permission(
        None, {"tool": _Tool(), "tool_input": {"path": "README.md"}}, passthrough
    )
    assert allowed.behavior == PermissionBehavior.ALLOW and len(asked) == 1
