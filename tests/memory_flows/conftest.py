"""Helpers for the memory-flow tests (the `memory_model` fixture lives in tests/conftest.py)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from tests.agent.conftest import assistant_factory  # noqa: F401  (re-exported fixture)


def daily_file(working_dir: Path) -> Path:
    return working_dir / "memory" / f"{dt.date.today().isoformat()}.md"
