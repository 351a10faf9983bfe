"""A real `FileMemory` (keyword-only search, LLM = the fake server) behind a `JobRunner`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from remecli.config.settings import LLMSettings, Settings
from remecli.ops import JobRunner

DAILY_TEXT = "# 2025-01-31\n\n## Deploys\n\nWe deploy with `make ship` on Fridays.\n"


def job_settings(tmp_path: Path, base_url: str = "http://127.0.0.1:9/v1") -> Settings:
    """Settings for a test working dir: keyword-only search, no watcher, the given LLM."""
    settings = Settings(
        working_dir=str(tmp_path / ".reme"),
        llm=LLMSettings(
            base_url=base_url, api_key="sk-test", model_name="fake-model", max_retries=0
        ),
    )
    return settings.with_changes({"search.embedding.backend": "none", "search.watch": False})


def seed(root: Path) -> None:
    """A little memory: MEMORY.md, two daily files, a transcript."""
    (root / "memory").mkdir(parents=True, exist_ok=True)
    (root / "MEMORY.md").write_text("# MEMORY\n\n- The staging host is stg-7.\n", encoding="utf-8")
    (root / "memory" / "2025-01-31.md").write_text(DAILY_TEXT, encoding="utf-8")
    (root / "memory" / "2024-06-01.md").write_text(
        "# 2024-06-01\n\nOld note: we used to deploy with `make ship-legacy`.\n", encoding="utf-8"
    )


@pytest.fixture
async def runner(tmp_path: Path, fake_llm) -> AsyncIterator[JobRunner]:
    """A started runner on a seeded working dir."""
    seed(tmp_path / ".reme")
    job_runner = JobRunner.from_settings(job_settings(tmp_path, fake_llm.base_url))
    await job_runner.start(wait_for_index=True)
    try:
        yield job_runner
    finally:
        await job_runner.close()
