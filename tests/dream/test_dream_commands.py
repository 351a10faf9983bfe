"""`/dream` and `/interests` through the slash-command registry, on a real assistant."""

from __future__ import annotations

import datetime as dt

from remecli.agent import events as ev
from remecli.commands import COMMANDS, dispatch
from remecli.commands.session_events import ShowPage
from remecli.notes.layout import WorkingDir
from tests.dream.conftest import add_card, extraction, receipt, unit
from tests.dream.test_dream_actions import NODE, NODE_TEXT


class Pages:
    """A front-end that records the pages it is asked to show."""

    keys: tuple = ()
    config_hint = ""
    log_file = None

    def __init__(self) -> None:
        self.shown: list[tuple[str, str]] = []

    async def show_page(self, title: str, markdown: str) -> None:
        self.shown.append((title, markdown))


async def run(assistant, name: str, arg: str = "", ui=None) -> list:
    events = [e async for e in dispatch(assistant, COMMANDS[name], arg)]
    for event in events:  # pages are events now; hand them to the recording front-end
        if ui is not None and isinstance(event, ShowPage):
            await ui.show_page(event.title, event.markdown)
    return events


async def test_dream_command_consolidates_and_reports(assistant_factory, fake_llm, tmp_path):
    assistant = assistant_factory()
    await assistant.start()
    wd = WorkingDir(tmp_path / ".reme")
    card = add_card(wd, dt.date.today(), "atlas-db", "Atlas DB", "Chose PostgreSQL 16 for atlas.")
    fake_llm.add_text(extraction([unit("Atlas uses PostgreSQL", "wiki", "atlas: PG 16", card)]))
    fake_llm.add_tool_calls([("search_digest", {"query": "atlas postgres"})])
    fake_llm.add_tool_calls([("write", {"path": NODE, "content": NODE_TEXT})])
    fake_llm.add_text(receipt("CREATE", NODE))
    events = await run(assistant, "dream")
    texts = [e.text for e in events if isinstance(e, ev.Notice)]
    assert texts[0].startswith("Dreaming")
    assert len(texts) >= 2 and "fail" not in texts[-1].lower(), texts
    assert (wd.root / NODE).is_file()
    bad = await run(assistant, "dream", "yesterday")
    assert any(isinstance(e, ev.ErrorReport) and "YYYY-MM-DD" in e.message for e in bad)
    await assistant.close()


async def test_interests_command_shows_a_page(assistant_factory, tmp_path):
    assistant = assistant_factory()
    await assistant.start()
    ui = Pages()
    await run(assistant, "interests", ui=ui)
    assert ui.shown and ui.shown[0][0] == "interests" and ui.shown[0][1].strip()
    await assistant.close()
