"""execute_code: a separate interpreter, killed on timeout, output like bash."""

from __future__ import annotations

import sys

from remecli.tools.execute_code import execute_code
from tests.tools.conftest import make_ctx, wait_until_gone


async def test_runs_python_in_a_separate_process(ctx) -> None:
    (ctx.workspace / "helper_mod.py").write_text("VALUE = 41\n")
    code = "import os, sys, helper_mod\nprint(os.getpid(), sys.executable, helper_mod.VALUE + 1)"
    result = await execute_code(ctx, code)
    pid, executable, value = result.text.split("\n")[0].split()
    assert int(pid) != __import__("os").getpid()
    assert executable == sys.executable and value == "42"
    assert not result.is_error


async def test_exception_is_an_error_with_traceback(ctx) -> None:
    result = await execute_code(ctx, "print('start')\nraise ValueError('boom')")
    text = result.text
    assert result.is_error and "start" in text and "ValueError: boom" in text
    assert "[Exit code: 1]" in text


async def test_endless_loop_is_killed_with_its_children(ctx) -> None:
    code = (
        "import subprocess, sys\n"
        "child = subprocess.Popen(['sleep', '1000'])\n"
        "print(child.pid, flush=True)\n"
        "while True: pass\n"
    )
    result = await execute_code(ctx, code, timeout=1)
    assert result.is_error and "Timed out" in result.text
    assert await wait_until_gone(int(result.text.split()[0]))


async def test_output_truncated_like_bash(workspace) -> None:
    ctx = make_ctx(workspace, max_output_lines=20)
    result = await execute_code(ctx, "for i in range(5000): print(i)")
    text = result.text
    assert "Output truncated" in text and "4999" in text and "\n0\n" not in text


async def test_bad_arguments(ctx) -> None:
    assert (await execute_code(ctx, "")).is_error
    result = await execute_code(ctx, "print(1)", timeout=-3)
    assert result.is_error and "at least" in result.text
