"""How dream reads the extraction answer (JSON, fenced or in prose) and re-asks: no HTTP."""

from __future__ import annotations

import datetime as dt

import pytest

from remecli.knowledge.dream.extract import ExtractionError, extract_units
from remecli.knowledge.dream.state import ChangedCard
from tests.dream.conftest import extraction, unit
from tests.fakes.mock_model import MockModel

CARD = "memory/2025-01-31/deploy.md"
CARDS = [ChangedCard(CARD, "Atlas ships with make ship on Fridays.", "0" * 64, (0, 0))]


async def _extract(model: MockModel, max_units: int = 5):
    return await extract_units(
        model,
        CARDS,
        language="",
        max_units=max_units,
        recent_titles=[],
        today=dt.date(2025, 1, 31),
        max_retries=0,
    )


async def test_a_fenced_answer_after_prose_is_read_and_unknown_paths_dropped() -> None:
    units = [
        unit("Deploy atlas", "procedure", "make ship, Fridays", CARD, "memory/elsewhere.md"),
        unit("Ghost", "wiki", "only unknown cards", "memory/elsewhere.md"),
    ]
    answer = "Sure, here it is:\n```json\n" + extraction(units, skipped=[CARD, "x.md"]) + "\n```"
    result = await _extract(MockModel(answer))
    assert [(u.name, u.paths) for u in result.units] == [("Deploy atlas", [CARD])]
    assert result.skipped == [CARD]


async def test_an_unusable_answer_is_asked_again_with_the_problem_then_fails() -> None:
    model = MockModel(
        "Here are the units: deploy.",
        '{"units": [{"name": "x", "bucket": "nowhere", "summary": "s", "paths": []}]}',
    )
    with pytest.raises(ExtractionError, match="unusable twice") as failure:
        await _extract(model)
    assert "`units.0.bucket`" in str(failure.value)
    second = model.prompts[1]
    assert [m.role for m in second] == ["system", "user", "assistant", "user"]
    assert second[2].content == "Here are the units: deploy."
    assert "could not be used: it is not a JSON object" in second[-1].content


async def test_a_trailing_comma_is_repaired_and_units_are_capped() -> None:
    units = [unit(f"Unit {i}", "wiki", "s", CARD) for i in range(4)]
    answer = extraction(units).replace("]}", "],}", 1)
    result = await _extract(MockModel(answer), max_units=2)
    assert [u.name for u in result.units] == ["Unit 0", "Unit 1"]
