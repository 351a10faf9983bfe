"""Issue 37, item 4: an open tool panel shows a file's content as written (indentation and
blank lines kept), not squeezed into one JSON line."""

from __future__ import annotations

from remecli.ui.tui.widgets.tool_panel import ToolPanel
from tests.ui.screen_text import screen_text
from tests.ui.test_app_pilot import make_app, type_and_send, wait_until
from tests.ui.test_interactions import ready

CODE = "def add(a, b):\n    return a + b\n\n\nclass Box:\n    pass\n"


async def test_the_open_write_panel_keeps_the_contents_indentation(fake_llm, tmp_path) -> None:
    fake_llm.add_tool_calls([("write", {"path": "add.py", "content": CODE})])
    fake_llm.add_text("Written.")
    app = make_app(fake_llm, tmp_path, "tools.approval=never")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "write add.py")
        await wait_until(pilot, lambda: not app.replying and app.query(ToolPanel))
        assert (tmp_path / "add.py").read_text() == CODE
        await pilot.press("ctrl+o")
        await pilot.pause(0.2)
        rows = screen_text(app).splitlines()
        [top] = [n for n, row in enumerate(rows) if row.rstrip(" │").endswith("def add(a, b):")]
        column = rows[top].index("def add")
        assert [row[column:].rstrip(" │") for row in rows[top : top + 6]] == CODE.splitlines()
        assert rows[top + 6].strip(" │") == ""  # the result stands apart
        assert rows[top + 7].strip(" │").startswith("Created ")
