"""A cut command output is kept whole on disk (up to a cap) and becomes the offloaded content."""

from __future__ import annotations

from pathlib import Path

from remecli.conversation.full_output import FULL_OUTPUT_PREFIX, full_output_file
from remecli.conversation.tool_results import ToolResultStore
from remecli.tools.bash import bash
from remecli.tools.execute_code import execute_code
from tests.tools.conftest import make_ctx


async def test_cut_output_is_kept_whole_and_offloaded_whole(workspace: Path) -> None:
    ctx = make_ctx(workspace, max_output_lines=50, max_output_bytes=1_000)
    text = (await bash(ctx, "seq 1 100000")).text
    assert FULL_OUTPUT_PREFIX in text and "\n1\n" not in text  # the model sees only the tail
    full = full_output_file(text)
    assert full is not None and full.read_text().splitlines() == [str(n) for n in range(1, 100001)]
    store = ToolResultStore(ctx.working_dir / "tool_result", threshold=100)
    kept, offloaded = store.offload_detail("bash", text)
    assert offloaded == full  # issue 25.13: the offload names the kept output, no second copy
    assert list(full.parent.iterdir()) == [full] and full.name in kept
    lines = offloaded.read_text().splitlines()
    assert "1" in lines and "50000" in lines and "100000" in lines


async def test_the_cap_is_stated_in_the_file_reference(workspace: Path) -> None:
    ctx = make_ctx(workspace, max_output_lines=10, full_output_max_bytes=2_000)
    text = (await execute_code(ctx, "for i in range(10000): print(i)")).text
    assert "the first 2000 bytes of" in text
    full = full_output_file(text)
    assert full is not None and full.stat().st_size == 2_000
    assert full.read_text().startswith("0\n1\n2\n")


async def test_short_output_leaves_no_file_and_zero_turns_it_off(workspace: Path) -> None:
    ctx = make_ctx(workspace)
    assert FULL_OUTPUT_PREFIX not in (await bash(ctx, "echo short")).text
    folder = ctx.working_dir / "tool_result"
    assert not folder.exists() or list(folder.iterdir()) == []
    off = make_ctx(workspace, max_output_lines=10, full_output_max_bytes=0)
    assert FULL_OUTPUT_PREFIX not in (await bash(off, "seq 1 1000")).text


async def test_a_saved_output_is_not_also_told_to_be_redirected(workspace: Path) -> None:
    ctx = make_ctx(workspace, max_output_lines=50, max_output_bytes=1_000)
    text = (await bash(ctx, "seq 1 100000")).text
    reference, notice = text.splitlines()[:2]
    assert reference.startswith(FULL_OUTPUT_PREFIX)
    assert notice == (
        "[Output truncated: showing lines 99951-100000 of 100000. The rest is in the file named "
        "above: `read` it (offset/limit) or grep it; no need to run the command again.]"
    )
    assert "redirect" not in text
    off = make_ctx(workspace, max_output_lines=10, full_output_max_bytes=0)  # nothing saved
    assert "redirect the output to a file" in (await bash(off, "seq 1 1000")).text
