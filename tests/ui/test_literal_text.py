"""Issue 37, item 1: text that looks like HTML (generics, comparisons, `<module>` in a
traceback, XML) is shown as written in answers (streaming and finished), tables, code spans,
user turns and pages: the TUI has one Markdown parser configuration, with raw HTML off."""

from __future__ import annotations

from remecli.ui.tui.screens.text_screen import TextScreen
from remecli.ui.tui.widgets.chat_view import UserMessage
from tests.ui.screen_text import screen_text
from tests.ui.test_app_pilot import make_app, type_and_send, wait_until
from tests.ui.test_interactions import ready

SAMPLE = "generic types: List<String> and Map<K, V>; in <module>; x<y and y>z"
TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "<stdin>", line 1, in <module>\n'
    "NameError: name 'x' is not defined"
)
XML = '<config>\n<item key="a">1</item>\n</config>'
TABLE = "| type | example |\n|---|---|\n| generic | `Box<T>` and Vec<u8> |"
ANSWER = f"{SAMPLE}\n\n{TRACEBACK}\n\n{XML}\n\n{TABLE}\n\nCode: `a<b>c` done.\n"
SHOWN = [
    SAMPLE,
    "Traceback (most recent call last):",
    'File "<stdin>", line 1, in <module>',
    "NameError: name 'x' is not defined",
    "<config>",
    '<item key="a">1</item>',
    "</config>",
    "Box<T> and Vec<u8>",
    "Code: a<b>c done.",
]
ON_A_PAGE = [  # a page joins the lines of a paragraph (standard Markdown)
    SAMPLE,
    'File "<stdin>", line 1, in <module> NameError',
    '<config> <item key="a">1</item> </config>',
    "Box<T> and Vec<u8>",
    "Code: a<b>c done.",
]


async def test_angle_brackets_show_as_written_while_streaming_and_after(fake_llm, tmp_path) -> None:
    fake_llm.add_text(ANSWER, chunk_size=4, chunk_delay=0.03)
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(110, 50)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "why does List<String> fail in <module>?")
        await wait_until(pilot, lambda: "x<y and y>z" in screen_text(app))
        assert app.replying  # a partial answer
        assert SAMPLE in screen_text(app)
        await wait_until(pilot, lambda: not app.replying)
        await pilot.pause(0.1)
        shown = screen_text(app)
        for line in SHOWN:
            assert line in shown, line
        assert len(app.query(UserMessage)) == 1
        assert "why does List<String> fail in <module>?" in shown


async def test_pages_show_angle_brackets_as_written(fake_llm, tmp_path) -> None:
    app = make_app(fake_llm, tmp_path)
    async with app.run_test(size=(110, 50)) as pilot:
        await ready(pilot)
        app.push_screen(TextScreen(ANSWER, "page"))
        await wait_until(pilot, lambda: isinstance(app.screen, TextScreen))
        await pilot.pause(0.3)
        shown = screen_text(app)
        for line in ON_A_PAGE:
            assert line in shown, line
