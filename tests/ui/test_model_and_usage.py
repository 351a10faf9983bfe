"""The status line: each reply's tokens (and cost with prices set), and the model after /model."""

from __future__ import annotations

from remecli.ui.tui.widgets.status_line import StatusLine
from tests.fakes import FakeOpenAIServer
from tests.ui.test_app_pilot import ask, make_app, type_and_send, wait_until
from tests.ui.test_interactions import ready


async def test_status_line_shows_reply_tokens_and_cost(fake_llm, tmp_path) -> None:
    fake_llm.add_tool_calls(
        [("ls", {"path": "."})], usage={"prompt_tokens": 1000, "completion_tokens": 20}
    )
    fake_llm.add_text("Done.", usage={"prompt_tokens": 1500, "completion_tokens": 30})
    app = make_app(fake_llm, tmp_path, "llm.price_per_mtok_in=2", "llm.price_per_mtok_out=10")
    async with app.run_test(size=(140, 30)) as pilot:
        await ready(pilot)
        await ask(pilot, "look around")
        status = app.query_one(StatusLine)
        await wait_until(pilot, lambda: bool(status.reply_usage))
        # both model calls of the reply: 2,500 in, 50 out; 2,500×2/1M + 50×10/1M = $0.0055
        assert status.reply_usage == "reply ↑2,500 ↓50 $0.0055"
        assert "reply ↑2,500 ↓50 $0.0055" in str(status.render())


async def test_status_line_shows_tokens_without_cost_and_the_switched_model(tmp_path) -> None:
    fake_llm = FakeOpenAIServer(models=["fake-model", "fake-model-2"]).start()
    try:
        await _tokens_then_switch(fake_llm, tmp_path)
    finally:
        fake_llm.stop()


async def _tokens_then_switch(fake_llm: FakeOpenAIServer, tmp_path) -> None:
    fake_llm.add_text("Hi.", usage={"prompt_tokens": 700, "completion_tokens": 5})
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(140, 30)) as pilot:
        await ready(pilot)
        await ask(pilot, "hello")
        status = app.query_one(StatusLine)
        await wait_until(pilot, lambda: bool(status.reply_usage))
        assert status.reply_usage == "reply ↑700 ↓5"
        await type_and_send(pilot, "/model fake-model-2")
        await wait_until(pilot, lambda: status.model_name == "fake-model-2")
        assert "fake-model-2" in str(status.render())
        fake_llm.add_text("From the second model.")
        await ask(pilot, "again")
    assert [r.body["model"] for r in fake_llm.chat_requests()] == ["fake-model", "fake-model-2"]


async def test_status_line_shows_the_last_sync_and_a_conflict(fake_llm, tmp_path) -> None:
    from remecli.agent import events as ev

    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(140, 30)) as pilot:
        await ready(pilot)
        status = app.query_one(StatusLine)
        app.session.emit(ev.SyncStatus("synced 14:02"))
        await wait_until(pilot, lambda: bool(status.sync))
        assert "⇅ synced 14:02" in str(status.render())
        app.session.emit(ev.SyncStatus("sync: 1 conflict", trouble=True))
        await wait_until(pilot, lambda: status.sync.startswith("!"))
        line = status.render()
        assert "⇅ sync: 1 conflict" in str(line)
        assert any("yellow" in str(span.style) for span in line.spans)
