"""The `execute_code` tool: Python in a separate interpreter process, never in-process."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path

from remecli.llm.message import ToolOutput
from remecli.llm.tool_results import ToolArgumentError, as_text, error
from remecli.tools._process import run_in_process_group
from remecli.tools.bash import format_process_result, input_problem, output_spool, run_limit
from remecli.tools.context import ToolContext


async def execute_code(ctx: ToolContext, code: str, timeout: float | None = None) -> ToolOutput:
    """Run a Python program in a fresh interpreter and return what it prints.

    The program runs in the workspace folder with the interpreter remecli runs on; print the
    values you need. stdout and stderr are merged; long output keeps its last lines.

    Args:
        code: The complete Python source to run.
        timeout: Seconds before the program and its child processes are killed.
    """
    try:
        code = as_text(code, "code")
        limit = run_limit(ctx, timeout)
    except ToolArgumentError as exc:
        return error(str(exc))
    problem = input_problem(ctx, code, "code", "the Python source to run")
    if problem:
        return error(problem)
    folder = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix="remecli-code-"))
    try:
        script = folder / "snippet.py"
        await asyncio.to_thread(script.write_text, code, encoding="utf-8")
        result = await run_in_process_group(
            [sys.executable, "-u", str(script)],
            cwd=ctx.workspace,
            timeout_s=limit,
            max_bytes=ctx.settings.max_output_bytes,
            max_lines=ctx.settings.max_output_lines,
            env={"PYTHONPATH": _python_path(ctx.workspace)},
            spool=output_spool(ctx),
        )
    finally:
        # Synchronous on purpose: one tiny file, and it must also run when cancelled.
        shutil.rmtree(folder, ignore_errors=True)
    return format_process_result(result, limit, ctx.settings.bash_max_timeout)


def _python_path(workspace: Path) -> str:
    """PYTHONPATH with the workspace first, so the program can import the user's modules."""
    existing = os.environ.get("PYTHONPATH", "")
    return os.pathsep.join(part for part in (str(workspace), existing) if part)
