"""A long session stays as light as a short one: a finished answer keeps its text and the
heights of its parts, not every line it ever drew (what comes on screen is drawn again)."""

from __future__ import annotations

from remecli.ui.tui.widgets.assistant_message import AssistantMessage
from remecli.ui.tui.widgets.chat_view import ChatView
from remecli.ui.tui.widgets.markdown_segment import MarkdownSegment
from tests.ui.test_app_pilot import ask, make_app, type_and_send, wait_until
from tests.ui.test_interactions import ready

SECTION = "## Part {n}\n\nWe read the **config** files in order.\n\n```python\nx = {n}\n```\n\n"
ROWS = 30


def held_lines(segment: MarkdownSegment) -> list[str]:
    """The rendered lines Textual keeps for the segment (its strips), as text."""
    return [strip.text for strip in segment._render_cache.lines]


async def test_finished_answers_hold_only_the_lines_on_screen(fake_llm, tmp_path) -> None:
    answer = "".join(SECTION.format(n=n) for n in range(40))  # ~400 rows at 100 columns
    fake_llm.add_text(answer, chunk_size=200)
    fake_llm.add_text(answer.replace("Part", "Step"), chunk_size=200)
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, ROWS)) as pilot:
        await ready(pilot)
        await ask(pilot, "first")
        await type_and_send(pilot, "second")
        await wait_until(
            pilot,
            lambda: not app.replying and "Step 39" in list(app.query(AssistantMessage))[-1].text,
            timeout=60,
        )
        await pilot.pause(0.5)  # the app settled: idle
        segments = list(app.query(MarkdownSegment))
        assert sum(s.virtual_region.height for s in segments) > 5 * ROWS
        chat = app.query_one(ChatView)
        shown = [s for s in segments if s.region.overlaps(chat.region)]
        hidden = [s for s in segments if s not in shown]
        first_answer = list(app.query(AssistantMessage))[0].segments
        assert hidden and all(s in hidden for s in first_answer)  # scrolled far out of view
        assert [held_lines(s) for s in hidden] == [[] for _ in hidden]  # before: all they drew
        height = chat.virtual_size.height
        chat.scroll_home(animate=False)
        first = list(app.query(AssistantMessage))[0].segments[0]
        await wait_until(
            pilot, lambda: any("Part 0" in line for line in held_lines(first)), timeout=60
        )
        assert chat.virtual_size.height == height  # the layout kept its heights
        assert "Part 0" in first.plain_text() and "x = 0" in first.plain_text()
