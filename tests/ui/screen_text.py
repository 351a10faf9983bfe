"""What a Pilot-run app shows, as text: the rows of the current screen (and those under it)."""

from __future__ import annotations

import io

from rich.console import Console


def screen_text(app) -> str:
    """The screen as a user reads it: one line per row, trailing spaces removed."""
    width, height = app.size
    console = Console(
        width=width, height=height, file=io.StringIO(), record=True, legacy_windows=False
    )
    console.print(
        app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    )
    return "\n".join(line.rstrip() for line in console.export_text().splitlines())
