"""`/prune` removes the cards of deleted resource/ files (after the notice asked), keeping them in
history."""

from __future__ import annotations

from remecli.agent import events as ev
from remecli.commands import COMMANDS, dispatch
from remecli.notes.writer import MemoryWriter
from tests.agent.conftest import assistant_factory  # noqa: F401  (fixture)


async def test_prune_removes_cards_of_deleted_resources(assistant_factory, tmp_path) -> None:  # noqa: F811
    card = tmp_path / ".reme" / "memory" / "2026-01-05" / "price-list.md"
    card.parent.mkdir(parents=True)
    card.write_text(
        "---\nname: Price list\ndescription: Prices of the 2026 plans.\n"
        'source_resource: "[[resource/prices.csv]]"\n---\n- Basic: 5 EUR\n'
    )
    assistant = assistant_factory()
    await assistant.start()
    gone: list = []
    assistant.runtime.resources.on_gone = gone.extend  # what the notice reports
    await assistant.runtime.resources.sync()
    assert {o.card for o in gone} == {"memory/2026-01-05/price-list.md"}
    events = [e async for e in dispatch(assistant, COMMANDS["prune"], "")]
    notices = [e.text for e in events if isinstance(e, ev.Notice)]
    assert notices and "Removed 1 card(s): memory/2026-01-05/price-list.md" in notices[0]
    assert not card.exists()
    versions = MemoryWriter(tmp_path / ".reme").history(card)
    assert versions and versions[-1].deleted  # restorable
    again = [e async for e in dispatch(assistant, COMMANDS["prune"], "")]
    assert any("No card of a deleted resource" in e.text for e in again if isinstance(e, ev.Notice))
    await assistant.close()
