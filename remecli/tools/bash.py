"""The `bash` tool: a shell command in the workspace, in its own process group."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from remecli.config.locations import Locations
from remecli.conversation.full_output import FullOutputSpool
from remecli.llm.message import ToolOutput
from remecli.llm.tool_results import ToolArgumentError, as_float, as_text, error, ok
from remecli.tools._process import ProcessResult, run_in_process_group
from remecli.tools.context import ToolContext


def user_shell() -> str:
    """The user's shell ($SHELL when it exists), else /bin/bash, else /bin/sh."""
    for candidate in (os.environ.get("SHELL", ""), "/bin/bash", "/bin/sh"):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return "/bin/sh"


async def bash(ctx: ToolContext, command: str, timeout: float | None = None) -> ToolOutput:
    """Run a shell command in the workspace and return its output and exit code.

    stdout and stderr are merged in order; long output keeps its last lines. Commands run
    without a terminal or stdin: pass non-interactive flags (e.g. `-y`). Background jobs (`&`)
    are stopped when the command returns; to keep a server running, start it with
    `nohup setsid CMD > log 2>&1 &`.

    Args:
        command: The command line, run by the user's shell in the workspace folder.
        timeout: Seconds before the command and all its child processes are killed
            (capped at the configured maximum).
    """
    try:
        command = as_text(command, "command")
        limit = run_limit(ctx, timeout)
    except ToolArgumentError as exc:
        return error(str(exc))
    problem = input_problem(ctx, command, "command", "the shell command line to run")
    if problem:
        return error(problem)
    checkpoints = ctx.checkpoints
    before = await asyncio.to_thread(checkpoints.before_run) if checkpoints else None
    try:
        result = await run_in_process_group(
            [user_shell(), "-c", command],
            cwd=ctx.workspace,
            timeout_s=limit,
            max_bytes=ctx.settings.max_output_bytes,
            max_lines=ctx.settings.max_output_lines,
            spool=output_spool(ctx),
        )
    finally:
        if checkpoints is not None and before is not None:  # what the run changed: /undo
            await asyncio.shield(asyncio.to_thread(checkpoints.after_run, before))
    return format_process_result(result, limit, ctx.settings.bash_max_timeout)


def format_process_result(
    result: ProcessResult, timeout_s: float, max_timeout_s: float
) -> ToolOutput:
    """The model-facing text of a finished process: output, then its exit status."""
    body = result.output.render(saved=bool(result.full_output)) or "(no output)"
    if result.full_output:
        body = f"{result.full_output}\n{body}"
    metadata = {
        "exit_code": result.exit_code,
        "timed_out": result.timed_out,
        "duration_s": round(result.duration_s, 3),
        "truncated": result.output.truncated,
        "total_lines": result.output.total_lines,
    }
    if result.timed_out:
        status = (
            f"[Timed out after {timeout_s:g} s: the command and its child processes were killed. "
            f"Pass a larger `timeout` (at most {max_timeout_s:g} s) or make the command finish "
            f"sooner.]"
        )
        return error(f"{body}\n{status}", **metadata)
    status = f"[Exit code: {result.exit_code}]"
    if result.stopped_background:
        status += " [Background processes left running were stopped.]"
    if result.left_running:
        status += f" [Still running in the background (stopped when remecli exits): {result.left_running}]"
    text = f"{body}\n{status}"
    return ok(text, **metadata) if result.exit_code == 0 else error(text, **metadata)


def output_spool(ctx: ToolContext) -> FullOutputSpool | None:
    """Where a run's whole output goes (kept only if the shown tail is cut), or None if off."""
    if ctx.settings.full_output_max_bytes <= 0:
        return None
    try:
        folder = Locations(ctx.working_dir).tool_result_dir
        return FullOutputSpool(folder, ctx.settings.full_output_max_bytes)
    except OSError:  # a read-only working dir: the tail alone is still shown
        return None


def run_limit(ctx: ToolContext, timeout: object) -> float:
    """Seconds a bash/execute_code run may take: the default, or the model's ask up to the cap."""
    if timeout is None:
        return ctx.settings.bash_timeout
    return min(as_float(timeout, "timeout", minimum=0.001), ctx.settings.bash_max_timeout)


def input_problem(ctx: ToolContext, text: str, name: str, what: str) -> str | None:
    """Why a run cannot start (empty input, missing workspace), or None."""
    if not text.strip():
        return f"The {name} is empty: pass {what} in `{name}`."
    if not ctx.workspace.is_dir():
        return f"The workspace folder {ctx.workspace} does not exist."
    return None
