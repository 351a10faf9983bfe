"""Issue 37, item 5: the status line keeps the state (ready, answering…) at any width: the
least needed fields are shortened or dropped first, and nothing is cut mid-field."""

from __future__ import annotations

from remecli.ui.tui.widgets.status_line import StatusLine
from tests.ui.screen_text import screen_text
from tests.ui.test_app_pilot import ask, make_app, type_and_send, wait_until
from tests.ui.test_interactions import ready


async def test_the_state_stays_visible_at_120_80_and_50_columns(fake_llm, tmp_path) -> None:
    fake_llm.add_text("First.")
    fake_llm.add_text("word " * 600, chunk_size=5, chunk_delay=0.02)
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await ask(pilot, "hello")  # the status line now shows the reply's tokens too
        status = app.query_one(StatusLine)
        await type_and_send(pilot, "talk a lot")
        await wait_until(pilot, lambda: status.state == "answering…")
        seen = {}
        for width in (120, 80, 50):
            await pilot.resize_terminal(width, 30)
            await pilot.pause(0.2)
            assert status.state == "answering…"  # still streaming
            row = screen_text(app).splitlines()[-1]
            assert "answering…" in row, (width, row)
            assert row.strip() == str(status.render()).strip()  # the whole line fits
            seen[width] = row
        assert "reply ↑" in seen[120] and "memory: project" in seen[120]
        assert "fake-model" in seen[80] and "memory: project" in seen[80]
        assert len(seen[50]) <= 50
        await pilot.press("escape")  # not left streaming into a closing app
        await wait_until(pilot, lambda: not app.replying)
