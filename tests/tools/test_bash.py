"""bash: output, exit codes, truncation, timeouts and the whole process group killed."""

from __future__ import annotations

import asyncio
import re

from remecli.tools.bash import bash
from tests.tools.conftest import make_ctx, process_gone, wait_until_gone


async def test_runs_in_workspace_and_reports_exit_code(ctx) -> None:
    (ctx.workspace / "here.txt").write_text("x")
    result = await bash(ctx, "pwd; ls")
    text = result.text
    assert str(ctx.workspace) in text and "here.txt" in text
    assert "[Exit code: 0]" in text and not result.is_error
    assert result.metadata["exit_code"] == 0


async def test_nonzero_exit_is_an_error_with_output(ctx) -> None:
    result = await bash(ctx, "echo before; exit 7")
    assert result.is_error
    assert "before" in result.text and "[Exit code: 7]" in result.text


async def test_stdout_and_stderr_merged_in_order_and_ansi_stripped(ctx) -> None:
    result = await bash(ctx, "echo one; echo two >&2; echo three; printf '\\033[31mred\\033[0m\\n'")
    text = result.text
    assert re.search(r"one\ntwo\nthree\nred\n", text)
    assert "\x1b" not in text


async def test_long_output_keeps_the_tail_with_a_notice(workspace) -> None:
    ctx = make_ctx(workspace, max_output_lines=50, max_output_bytes=1_000)
    result = await bash(ctx, "seq 1 100000")
    text = result.text
    assert "Output truncated" in text and "of 100000" in text
    assert text.rstrip().split("\n")[-2] == "100000"  # last line before the exit status
    assert "\n1\n" not in text
    assert len(text.encode()) < 1_600
    assert result.metadata["truncated"] is True


async def test_timeout_kills_the_whole_group(ctx) -> None:
    result = await bash(ctx, "sleep 1000 & echo $!; sleep 1000", timeout=1)
    text = result.text
    assert result.is_error and "Timed out after 1 s" in text
    child = int(text.split()[0])
    assert await wait_until_gone(child)


async def test_cancel_kills_the_whole_group(ctx) -> None:
    pid_file = ctx.workspace / "pid"
    task = asyncio.create_task(bash(ctx, f"sleep 1000 & echo $! > {pid_file}; sleep 1000"))
    for _ in range(100):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        await asyncio.sleep(0.02)
    child = int(pid_file.read_text())
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    else:
        raise AssertionError("the cancellation was swallowed")
    assert await wait_until_gone(child)


async def test_background_children_do_not_outlive_the_call(ctx) -> None:
    result = await bash(ctx, "sleep 1000 & echo $!; echo done")
    text = result.text
    assert "done" in text and "[Exit code: 0]" in text and "stopped" in text
    assert process_gone(int(text.split()[0]))


async def test_timeout_argument_is_coerced_and_capped(ctx) -> None:
    result = await bash(ctx, "echo ok", timeout="2")
    assert "ok" in result.text and not result.is_error
    result = await bash(ctx, "echo ok", timeout=10_000)  # above the cap: capped, still runs
    assert not result.is_error
    result = await bash(ctx, "echo ok", timeout="soon")
    assert result.is_error and "`timeout` must be a number" in result.text


async def test_empty_command_and_no_stdin(ctx) -> None:
    assert (await bash(ctx, "   ")).is_error
    result = await bash(ctx, "cat; echo read-eof")  # stdin is /dev/null: no hang
    assert "read-eof" in result.text


async def test_undecodable_output_is_replaced(ctx) -> None:
    result = await bash(ctx, "printf 'a\\377b\\n'")
    assert "a\ufffdb" in result.text
