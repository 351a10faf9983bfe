"""The answer renderer: a few light widgets drawn by Rich, selectable, themed, links clickable;
and the collector kept out of the stream without keeping cleared widgets alive."""

from __future__ import annotations

import contextlib
import gc
import weakref

from remecli.ui.tui import collector_pauses
from remecli.ui.tui.widgets.assistant_message import TAIL_CHARS, AssistantMessage
from tests.ui.test_app_pilot import ask, make_app, type_and_send, wait_until
from tests.ui.test_interactions import ready


async def test_a_long_answer_is_a_few_widgets_not_one_per_block(fake_llm, tmp_path) -> None:
    section = "## Part {n}\n\n- first\n- second\n\n```python\nx = {n}\n```\n\n"
    answer = "".join(section.format(n=n) for n in range(60))  # 240 blocks, 120 list items
    fake_llm.add_text(answer, chunk_size=50)
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        message = await ask(pilot, "long please")
        widgets = list(message.walk_children())
        assert widgets == message.segments  # nothing mounted per block
        assert 1 < len(widgets) <= len(answer) // TAIL_CHARS + 1
        drawn = "\n".join(segment.plain_text() for segment in message.segments)
        assert all(f"x = {n}" in drawn and f"Part {n}" in drawn for n in range(60))
        assert drawn.count("• first") == 60


async def test_theme_change_redraws_answers_in_the_new_colours(fake_llm, tmp_path) -> None:
    fake_llm.add_text("Some `code` and **bold** text.")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        [segment] = (await ask(pilot, "hi")).segments
        assert segment.render().look.key == "remecli-dark"
        app.theme = "remecli-light"
        await pilot.pause(0.2)
        assert segment.render().look.key == "remecli-light"
        assert "Some code and bold text." in segment.plain_text()


async def test_clicking_a_link_in_an_answer_opens_it(fake_llm, tmp_path) -> None:
    fake_llm.add_text("See [the docs](https://example.com/docs) for more.")
    app = make_app(fake_llm, tmp_path)
    opened: list[str] = []
    app.open_url = lambda url, new_tab=True: opened.append(url)  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        [segment] = (await ask(pilot, "docs?")).segments
        column = segment.plain_text().index("the docs")
        await pilot.click(segment, offset=(1, 0))
        await pilot.pause(0.1)
        assert opened == []  # plain text: nothing opens
        await pilot.click(segment, offset=(segment.styles.padding.left + column + 1, 0))
        await wait_until(pilot, lambda: opened == ["https://example.com/docs"])


async def test_idle_app_freezes_live_objects_and_cleared_widgets_are_still_freed(
    fake_llm, tmp_path
) -> None:
    fake_llm.add_text("an answer to forget")
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_until(pilot, lambda: gc.get_freeze_count() > 0)  # settled after start-up
        # (ask uses no query_one: Textual's query cache would keep the widget alive)
        gone = weakref.ref(await ask(pilot, "remember nothing"))
        await type_and_send(pilot, "/clear")
        await wait_until(pilot, lambda: not app.query(AssistantMessage) and not app.replying)
        await wait_until(pilot, lambda: gone() is None)  # frozen, yet freed after /clear
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0  # leaving the app hands everything back


def test_settle_and_release_are_the_collectors_freeze_and_unfreeze() -> None:
    try:
        collector_pauses.settle()
        assert gc.get_freeze_count() > 0
    finally:
        collector_pauses.release()
    assert gc.get_freeze_count() == 0


class _Cycle:
    """An object in a reference cycle: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self


def test_what_one_settle_froze_and_then_died_is_freed_at_the_next_settle() -> None:
    leftover = _Cycle()  # a reply's state, alive when the app settled after it
    gone = weakref.ref(leftover)
    try:
        collector_pauses.settle()
        del leftover  # dropped during the next reply
        collector_pauses.settle()  # the next idle moment
        assert gone() is None
    finally:
        collector_pauses.release()


def test_a_segment_is_drawn_once_per_width() -> None:
    from remecli.ui.tui.widgets.markdown_look import markdown_look
    from remecli.ui.tui.widgets.markdown_segment import MarkdownVisual

    look = markdown_look("t", (("background", "#000000"), ("primary", "#4fb3bf")), True)
    visual = MarkdownVisual("# Title\n\n" + "some words " * 40, look)
    wide = visual.content(100)
    assert visual.content(100) is wide  # cached
    narrow = visual.content(40)
    assert max(len(line) for line in narrow.plain.split("\n")) <= 40
    assert visual.get_height({}, 40) > visual.get_height({}, 100)  # type: ignore[arg-type]


def test_long_code_lines_wrap_instead_of_being_cut_off() -> None:
    from remecli.ui.tui.widgets.markdown_look import markdown_look
    from remecli.ui.tui.widgets.markdown_segment import MarkdownVisual

    look = markdown_look("t", (("background", "#000000"),), True)
    line = "value = " + " + ".join(f"term_{n}" for n in range(40))  # ~330 characters
    drawn = MarkdownVisual(f"```python\n{line}\n```\n", look).plain(60)
    assert max(len(row) for row in drawn.splitlines()) <= 60
    joined = "".join(row.strip() for row in drawn.splitlines())
    assert joined.replace(" ", "") == line.replace(" ", "")  # every character is shown


async def test_a_long_code_block_streams_in_parts_that_draw_as_one_block(
    fake_llm, tmp_path
) -> None:
    from remecli.ui.tui.widgets.markdown_segment import MarkdownVisual

    body = "".join(f"def step_{n}(x):\n    return x + {n}\n\n" for n in range(60))
    answer = f"```python\n{body}```\n"  # ~2,000 characters and no blank line outside code
    fake_llm.add_text(answer, chunk_size=40, chunk_delay=0.01)  # streamed, not all at once
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        message = await ask(pilot, "code please")
        segments = message.segments
        assert len(segments) > 1  # the live part stayed small
        assert "".join(segment.source for segment in segments) == answer
        width = segments[0].content_region.width
        whole = MarkdownVisual(answer, segments[0].render().look).plain(width)

        def drawn() -> str:
            return "\n".join(segment.plain_text() for segment in message.segments)

        # once the finished answer has settled (under load the last part's final state can
        # come a frame after the reply ends): no seam, no padding rows or margins where the
        # parts meet, no blank line lost
        with contextlib.suppress(AssertionError):
            await wait_until(pilot, lambda: drawn() == whole, timeout=10)
        assert drawn() == whole


async def test_lists_are_not_split_and_reference_links_resolve_across_parts(
    fake_llm, tmp_path
) -> None:
    items = "".join(f"{n}. Step {n} explained in a sentence or two.\n\n" for n in range(1, 40))
    answer = f"See the [project page][proj].\n\n{items}Done.\n\n[proj]: https://example.com/p\n"
    fake_llm.add_text(answer, chunk_size=30)
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        segments = (await ask(pilot, "steps")).segments
        assert len(segments) > 1
        assert not any(segment.source[:1].isdigit() for segment in segments[1:]), [
            s.source[:30] for s in segments
        ]
        shown = "\n".join(segment.plain_text() for segment in segments)
        assert "See the project page." in shown and "[proj]" not in shown
        assert " 9. Step 9" in shown and "10. Step 10" in shown  # one list, one numbering


def test_cuts_inside_a_code_block_close_and_reopen_the_fence() -> None:
    from remecli.ui.tui.widgets.markdown_cuts import find_cut, safe_cut

    tail = "Intro.\n\n~~~~js\n" + "let a = 1;\n" * 60 + "let b"
    cut = find_cut(tail, 0, keep=1_200, code_keep=400)
    assert cut is not None and tail[: cut.offset].endswith("let a = 1;\n")
    assert (cut.close, cut.reopen) == ("~~~~\n", "~~~~js\n")
    assert find_cut("short\n\nenough", 0, keep=1_200, code_keep=400) is None
    assert safe_cut("1. one\n\n2. two\n\nAfter.\n", 0) == len("1. one\n\n2. two\n\n")
    assert safe_cut("Intro.\n\n1", 0) is None  # "1" may still become "10. an item"
