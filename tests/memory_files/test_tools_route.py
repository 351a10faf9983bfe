"""The agent's `write` / `edit` tools go through the memory writer for memory files only."""

from __future__ import annotations

from pathlib import Path

from remecli.tools.edit import edit
from remecli.tools.write import write
from tests.tools.conftest import make_ctx

KEY = "sk-proj-" + "x7Qm2LkP9aZr4TgH1vNc8BdE5fWs3Yj6uKo0IpMn"


async def test_write_and_edit_of_memory_files_are_versioned_and_redacted(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    memory_md = ctx.working_dir / "MEMORY.md"
    created = await write(ctx, str(memory_md), f"# MEMORY\n- key {KEY}\n- keep me\n")
    assert not created.is_error and "secrets redacted: openai_key" in created.text
    assert KEY not in memory_md.read_text()
    refused = await write(ctx, str(memory_md), "# MEMORY\n- only this\n")
    assert refused.is_error and "Use `edit`" in refused.text
    assert "- keep me" in memory_md.read_text()
    edited = await edit(ctx, str(memory_md), "- keep me", "- kept, edited")
    assert not edited.is_error, edited.text
    sources = [v.source for v in ctx.writer.history(memory_md)]
    assert sources == ["agent write", "agent edit"]


async def test_other_files_are_written_as_before(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    plain = tmp_path / "notes.md"
    await write(ctx, str(plain), f"key {KEY}\nline\n")
    await write(ctx, str(plain), "shorter\n")  # no shrink rule, no redaction outside memory
    assert plain.read_text() == "shorter\n"
    assert not (ctx.working_dir / ".history").exists()
