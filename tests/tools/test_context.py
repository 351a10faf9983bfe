"""ToolContext: the workspace and path resolution."""

from __future__ import annotations

from pathlib import Path

from remecli.config.settings import ToolSettings
from remecli.notes.writer import MemoryWriter
from remecli.tools.context import ToolContext


def test_workspace_defaults_to_cwd(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    writer = MemoryWriter(tmp_path / ".reme")
    ctx = ToolContext.from_settings(ToolSettings(), tmp_path / ".reme", writer)
    assert ctx.workspace == tmp_path.resolve()
    other = ToolContext.from_settings(ToolSettings(workspace=str(tmp_path / "w")), tmp_path, writer)
    assert other.workspace == (tmp_path / "w").resolve()


def test_resolve_and_inside(tmp_path) -> None:
    writer = MemoryWriter(tmp_path / ".reme")
    ctx = ToolContext(tmp_path / "ws", tmp_path / ".reme", ToolSettings(), writer=writer)
    assert ctx.resolve("a/../b.txt") == tmp_path / "ws" / "b.txt"
    assert ctx.resolve("/etc/hosts") == Path("/etc/hosts")
    assert ctx.resolve("~") == Path.home()
    assert ctx.is_inside_workspace("sub/file") and ctx.is_inside_workspace(".")
    assert not ctx.is_inside_workspace("../ws-sibling/file")
