"""Auto Resource tests: settings against the fake OpenAI server and the model's card answers."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from remecli.config.settings import LLMSettings, Settings
from remecli.knowledge.cards.card import read_meta
from remecli.knowledge.resources.cards import ResourceCards
from remecli.notes.layout import WorkingDir
from remecli.ops import JobRunner


def resource_settings(tmp_path: Path, base_url: str, *, watch: bool = False) -> Settings:
    """Settings for a test working dir: keyword-only search, the fake LLM, no retries."""
    settings = Settings(
        working_dir=str(tmp_path / ".reme"),
        llm=LLMSettings(
            base_url=base_url, api_key="sk-test", model_name="fake-model", max_retries=0
        ),
    )
    return settings.with_changes(
        {
            "search.embedding.backend": "none",
            "search.watch": watch,
            "search.watch_debounce_ms": 100,
        }
    )


def answer(name: str, description: str, *points: str, tags: tuple[str, ...] = ("test",)) -> str:
    """What the model answers for one resource."""
    return json.dumps(
        {"name": name, "description": description, "tags": list(tags), "key_points": list(points)}
    )


def resource_text(body: dict[str, Any]) -> str:
    """The resource text the model was shown in a chat request."""
    user = body["messages"][-1]["content"]
    text = user if isinstance(user, str) else "".join(part.get("text", "") for part in user)
    return text.split("<resource>", 1)[1].rsplit("</resource>", 1)[0]


def resource_cards(root: Path) -> list[tuple[str, dict[str, Any]]]:
    """(relative path, frontmatter) of every card with a `source_resource`."""
    found = []
    for card in sorted((root / "memory").glob("*/*.md")):
        meta = read_meta(card)
        if meta.get("source_resource"):
            found.append((card.relative_to(root).as_posix(), meta))
    return found


@pytest.fixture
async def runner(tmp_path: Path, fake_llm) -> AsyncIterator[JobRunner]:
    """A started job runner on a fresh working dir (resource settings, the fake server)."""
    job_runner = JobRunner.from_settings(resource_settings(tmp_path, fake_llm.base_url))
    await job_runner.start(wait_for_index=True)
    try:
        yield job_runner
    finally:
        await job_runner.close()


@pytest.fixture
def cards(tmp_path: Path, fake_llm) -> ResourceCards:
    """ResourceCards on a fresh working dir, the model built from settings (the fake server)."""
    from remecli.llm.model import build_chat_model
    from remecli.notes.writer import MemoryWriter

    settings = resource_settings(tmp_path, fake_llm.base_url)
    layout = WorkingDir(tmp_path / ".reme").ensure()
    writer = MemoryWriter.from_settings(layout.root, settings.memory)
    model = build_chat_model(settings.llm, context_size=settings.max_input_length, stream=False)
    return ResourceCards(layout, settings, lambda: model, writer)


def drop(cards: ResourceCards, name: str, content: str | bytes) -> str:
    """Put a file into resource/; its `resource/<name>`."""
    path = cards.folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return f"resource/{name}"
