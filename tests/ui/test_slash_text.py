"""In the TUI: a line that starts with a slash but is a path or text goes to the model; `//`
sends a literal slash; a mistyped command names the nearest one and sends nothing."""

from __future__ import annotations

from remecli.ui.tui.widgets.assistant_message import AssistantMessage
from remecli.ui.tui.widgets.chat_view import UserMessage
from tests.fakes.messages import content_text
from tests.ui.test_app_pilot import make_app, type_and_send, wait_until
from tests.ui.test_interactions import ready


async def test_paths_go_to_the_model_and_typos_are_named(fake_llm, tmp_path) -> None:
    fake_llm.add_text("Noted: /srv/data.")
    fake_llm.add_text("Sent literally.")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/hlep")
        await wait_until(pilot, lambda: app.query(".error"))
        error = str(app.query(".error").last().render())
        assert "Unknown command '/hlep'" in error and "Did you mean /help?" in error
        await type_and_send(pilot, "/srv/data is where I keep stuff")
        await wait_until(pilot, lambda: not app.replying and app.query(AssistantMessage))
        await type_and_send(pilot, "//help")
        await wait_until(pilot, lambda: not app.replying and len(app.query(AssistantMessage)) == 2)
        shown = [u.text for u in app.query(UserMessage)]
        assert shown == ["/srv/data is where I keep stuff", "/help"]
    sent = [content_text(r.body["messages"][-1]) for r in fake_llm.chat_requests()]
    assert sent == ["/srv/data is where I keep stuff", "/help"]
