"""Issue 21, item 5: /help ("Where things are") and the system prompt (English and Chinese)
describe the memory folder as the code lays it out, and how to find things in it."""

from __future__ import annotations

from pathlib import Path

import pytest

from remecli.agent.system_prompt import build_system_prompt
from remecli.commands.help_text import help_markdown
from remecli.config.locations import Locations
from remecli.knowledge.cards.card import day_folder
from remecli.knowledge.dream.digest import BUCKETS


def _real_layout(root: Path) -> list[str]:
    """The paths the code writes, as the docs spell them (a date and a slug as placeholders)."""
    import datetime as dt

    from remecli.notes.layout import WorkingDir

    layout, day = WorkingDir(root), dt.date(2026, 2, 17)
    card = (day_folder(layout, day) / "deploy-plan.md").relative_to(root).as_posix()
    page = layout.daily_file(day).relative_to(root).as_posix()
    locations = Locations(root)
    return [
        card.replace("2026-02-17", "YYYY-MM-DD").replace("deploy-plan", "<slug>"),
        page.replace("2026-02-17", "YYYY-MM-DD"),
        *(f"digest/{bucket}/" for bucket in BUCKETS),
        f"{locations.resource_dir.name}/",
        "MEMORY.md",
    ]


@pytest.mark.parametrize("language", ["", "zh"])
def test_the_system_prompt_describes_cards_day_page_digest_and_resources(
    tmp_path, language
) -> None:
    prompt = build_system_prompt(
        language=language, workspace=tmp_path, working_dir=tmp_path, tools=[]
    )
    for path in _real_layout(tmp_path):
        assert path in prompt, path
    for tool in ("memory_search", "memory_links", "`read`"):
        assert tool in prompt
    assert prompt.index("memory_search") < prompt.index("memory_links")
    assert "daily summaries" not in prompt and "每日摘要" not in prompt


def test_help_says_where_things_are_and_how_to_find_them(tmp_path) -> None:
    page = help_markdown(working_dir=str(tmp_path), workspace=str(tmp_path), config_hint="x")
    where = page.split("## Where things are", 1)[1]
    for path in (*_real_layout(tmp_path), "sessions/"):
        assert path in where, path
    assert "daily summaries" not in where
    assert "memory_search" in where and "memory_links" in where
    assert "remecli search" in where


def test_every_command_row_of_help_has_three_cells() -> None:
    """A `|` in a usage (`/memory [open|undo PATH]`) is escaped, not a fourth column."""
    from markdown_it import MarkdownIt

    from remecli.commands.registry import COMMANDS

    text = help_markdown(working_dir="/w", workspace="/s", config_hint="c")
    tokens = MarkdownIt().enable("table").parse(text)
    first_table = tokens[: next(i for i, t in enumerate(tokens) if t.type == "table_close")]
    rows: list[list[str]] = []
    for i, token in enumerate(first_table):
        if token.type == "tr_open":
            rows.append([])
        elif token.type == "td_open":
            rows[-1].append(first_table[i + 1].content)
    commands = [row for row in rows if row]
    assert len(commands) == len(COMMANDS)
    assert all(len(row) == 3 for row in commands), commands
    assert any("[open|undo PATH]" in row[0] for row in commands)
