"""Helpers for the dream tests: settings against the fake server, cards, scripted turns."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from remecli.config.settings import LLMSettings, Settings
from remecli.knowledge.cards.card import apply_card_fields
from remecli.notes.layout import WorkingDir


def make_settings(fake_llm, tmp_path: Path, **overrides: Any) -> Settings:
    """Settings pointing at the fake server, keyword-only search, no retries."""
    settings = Settings(
        working_dir=str(tmp_path / ".reme"),
        max_input_length=16_000,
        llm=LLMSettings(
            base_url=fake_llm.base_url, api_key="sk-test", model_name="fake-model", max_retries=0
        ),
        **overrides,
    )
    return settings.with_changes({"search.embedding.backend": "none"})


@pytest.fixture
def working_dir(tmp_path: Path) -> WorkingDir:
    """A fresh working dir."""
    return WorkingDir(tmp_path / ".reme").ensure()


def add_card(working_dir: WorkingDir, day: dt.date, slug: str, name: str, text: str) -> str:
    """Write a card of `day` as the summarizer would; its relative path."""
    rel = f"memory/{day:%Y-%m-%d}/{slug}.md"
    body = f"---\nname: {name}\ndescription: {text}\ntags: [test]\n---\n# {name}\n\n## Timeline\n- 10:00 {text}\n"
    card = apply_card_fields(body, session_id=f"s-{slug}", day=day, lines=(1, 2))
    path = working_dir.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(card)
    return rel


def node_text(card: str, claim: str = "Deploy atlas with `make ship`, on Fridays only.") -> str:
    """The deploy-atlas digest node the scripted integration agent writes, citing `card`."""
    return (
        "---\nname: Deploy atlas\ndescription: How atlas is deployed.\n---\n"
        f"{claim}\n\n## Sources\n- The procedure is in [[{card}]].\n"
    )


def extraction(units: list[dict], skipped: list[str] = (), interests: list[dict] = ()) -> str:
    """The extraction model's JSON answer."""
    return json.dumps({"units": units, "skipped": list(skipped), "interests": list(interests)})


def unit(name: str, bucket: str, summary: str, *paths: str) -> dict:
    return {"name": name, "bucket": bucket, "summary": summary, "paths": list(paths)}


def receipt(action: str, path: str, note: str = "") -> str:
    return json.dumps({"action": action, "path": path, "note": note})


from tests.agent.conftest import assistant_factory  # noqa: E402,F401  (re-exported fixture)
