"""Dream on a real model: valid, sourced digest actions, and MEMORY.md learns about the user."""

from __future__ import annotations

import time
from pathlib import Path

from remecli.knowledge.cards.card import apply_card_fields
from remecli.knowledge.dream.digest import ACTIONS, node_problem, sources_links
from remecli.knowledge.dream.runner import dream
from remecli.knowledge.memory_md.block import BLOCK_START, personal_lines, refresh_memory_md
from remecli.notes.layout import WorkingDir
from remecli.notes.writer import MemoryWriter
from tests.realmodel.conversations import DAY
from tests.realmodel.real import REAL_MODEL, real_settings

pytestmark = REAL_MODEL

# the cards the card writer keeps for the three scripted conversations (written as it writes them)
CARDS = {
    "staging-database-and-deploys": (
        "Staging database and deploys",
        "The staging database is pg-stage-7 in Frankfurt; deploys happen on Fridays with make ship.",
        "- 09:12 The user asked to remember the staging database and the deploy day.",
        "- Staging database: pg-stage-7, in Frankfurt.\n- Deploys: Fridays, with `make ship`.",
    ),
    "billing-moves-to-postgresql": (
        "Billing moves to PostgreSQL",
        "Billing moves from MySQL to PostgreSQL 16 next quarter because of JSONB; the user "
        "adopted a cat called Miso.",
        "- 14:03 Decided to move billing from MySQL to PostgreSQL 16 next quarter (JSONB).\n"
        "- 14:03 The user adopted a cat called Miso.",
        "- Reason for PostgreSQL 16: JSONB columns.\n- The user's cat is called Miso.",
    ),
    "atlas-flaky-export-test": (
        "Atlas flaky export test",
        "test_export_report in atlas failed on CI because of time zones; fixed with a freezegun "
        "fixture; the export was made 6x faster with openpyxl write_only mode.",
        "- 10:05 Found the cause: CI runs in UTC, the expected file was made in Berlin time.\n"
        "- 10:15 Fixed with freezegun; the user prefers fixtures over decorators.\n"
        "- 11:41 Merged PR #412: write_only mode, 50,000 rows in 6 s.",
        "- Fixture `frozen_clock` in tests/conftest.py.\n- Keep openpyxl (xlsxwriter not worth it).",
    ),
}


def write_cards(wd: WorkingDir) -> list[str]:
    """The three cards under `memory/<DAY>/`; their relative paths."""
    written = []
    for number, (slug, (name, description, timeline, details)) in enumerate(CARDS.items()):
        body = (
            f"---\nname: {name}\ndescription: {description}\ntags: [test]\n---\n# {name}\n\n"
            f"## Current state\n- {description}\n\n## Timeline\n{timeline}\n\n"
            f"## Details\n{details}\n"
        )
        card = apply_card_fields(body, session_id=f"s{number}", day=DAY, lines=(1, 2))
        rel = f"memory/{DAY:%Y-%m-%d}/{slug}.md"
        (wd.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (wd.root / rel).write_text(card, encoding="utf-8")
        written.append(rel)
    return written


async def test_dream_writes_valid_sourced_nodes_and_memory_md_learns(tmp_path: Path) -> None:
    # one unit: one request of ~2,000 tokens (about ten minutes on a CPU model)
    settings = real_settings(tmp_path, **{"memory.dream.max_units": 1})
    wd = WorkingDir(tmp_path / ".reme").ensure()
    cards = write_cards(wd)
    writer = MemoryWriter.from_settings(wd.root, settings.memory)
    started = time.monotonic()
    result = await dream(settings, wd, date=DAY, writer=writer)
    print(f"dream: {result.status} in {time.monotonic() - started:.0f} s: {result.message}")
    assert result.status in ("done", "partial"), result.message
    done = [o for o in result.outcomes if o.ok]
    assert done, result.message
    for outcome in done:
        assert outcome.action in ACTIONS and outcome.path, outcome
        text = (wd.root / outcome.path).read_text(encoding="utf-8")
        print(f"--- {outcome.action} {outcome.path}\n{text}")
        assert node_problem(outcome.path, text) is None, text
        sources = sources_links(text)
        assert set(outcome.unit.paths) <= set(cards), (outcome.unit.paths, cards)
        assert set(outcome.unit.paths) <= set(sources), (outcome.unit.paths, sources)
        invented = [s for s in sources if not (wd.root / s.split("#")[0]).is_file()]
        assert not invented, f"{outcome.path} cites notes that do not exist: {invented}"
    refresh_memory_md(wd, writer)
    entries = personal_lines(wd)
    assert entries, "no personal digest node: MEMORY.md learned nothing about the user"
    memory_md = wd.memory_md.read_text(encoding="utf-8")
    assert BLOCK_START in memory_md and entries[0] in memory_md
