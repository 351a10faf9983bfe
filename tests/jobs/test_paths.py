"""Path confinement: `..`, absolute paths, symlinks out of the working dir and private files."""

from __future__ import annotations

from pathlib import Path

import pytest

from remecli.ops.errors import InvalidParams, PathRefused
from remecli.ops.paths import confine


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = tmp_path / ".reme"
    (base / "memory").mkdir(parents=True)
    (base / "MEMORY.md").write_text("# MEMORY\n")
    (tmp_path / "secret.md").write_text("outside\n")
    (base / "memory" / "escape.md").symlink_to(tmp_path / "secret.md")
    (base / "memory" / "inside.md").symlink_to(base / "MEMORY.md")
    (base / "serve.token").write_text("t\n")
    return base


def test_relative_paths_resolve_inside(root: Path) -> None:
    found = confine(root, "MEMORY.md")
    assert found.path == (root / "MEMORY.md").resolve() and found.relative == "MEMORY.md"
    assert confine(root, "memory/inside.md").relative == "MEMORY.md"  # a link inside is fine
    assert confine(root, "", allow_root=True).relative == ""


@pytest.mark.parametrize(
    "raw", ["../secret.md", "memory/../../secret.md", "/etc/passwd", "~/x.md", "", "a\x00b"]
)
def test_escapes_and_nonsense_are_bad_requests(root: Path, raw: str) -> None:
    with pytest.raises(InvalidParams) as caught:
        confine(root, raw)
    assert "relative to the working dir" in str(caught.value)


@pytest.mark.parametrize("raw", ["memory/escape.md", "serve.token", "index/chunks.db", ".env"])
def test_symlinks_out_and_private_files_are_refused(root: Path, raw: str) -> None:
    with pytest.raises(PathRefused):
        confine(root, raw)
