"""The window paints before the agent runtime loads: importing the TUI never imports agentscope
(a regression once made start-up 4.7x a bare Textual app)."""

from __future__ import annotations

import subprocess
import sys


def test_the_tui_module_does_not_import_the_agent_runtime() -> None:
    code = (
        "import sys, remecli.ui.tui.app, remecli.ui.plain; "
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('agentscope', 'openai')); "
        "print(loaded); raise SystemExit(1 if loaded else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr


FIRST_FRAME = """
import sys, tempfile
from remecli.config import load_settings
from remecli.ui.tui.app import RemeApp

class FirstFrame(RemeApp):
    def on_ready(self):
        super().on_ready()
        print("LOADED", sorted({m for m in sys.modules if m.startswith(DEFERRED)}), flush=True)
        self.exit()

DEFERRED = tuple(sys.argv[1:])
settings = load_settings(["config=cli", "llm.api_key=sk-x", f"working_dir={tempfile.mkdtemp()}"])
FirstFrame(settings).run(headless=True, size=(100, 30))
"""

# Not needed to draw the first frame (an empty conversation and the input box), loaded at first
# use: the Markdown renderer of answers (Rich's, on markdown-it, with pygments for code), the
# workspace lister of `@path` completion, the checkpoints of /diff and /undo, the redactor
# (its patterns) of the input history, the `.env` reader (there is no `.env` here), the
# approval dialog (at the first tool call that asks), sqlite3 (the disk-full check of the
# log set-up needs it only for an error sqlite3 raised).
NOT_BEFORE_FIRST_FRAME = (
    "dotenv",
    "rich.markdown",
    "markdown_it",
    "pygments",
    "remecli.tools.mentions",
    "remecli.tools.checkpoints",
    "remecli.notes.redact",
    "remecli.ui.tui.screens.approval_screen",
    "sqlite3",
)


def test_the_first_frame_is_drawn_without_what_only_later_parts_use(tmp_path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", FIRST_FRAME, *NOT_BEFORE_FIRST_FRAME],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,  # no .env there
    )
    assert "LOADED []" in proc.stdout.splitlines(), proc.stdout + proc.stderr[-3000:]


COLLECTOR = """
import gc, tempfile
from remecli.config import load_settings
settings = load_settings(["config=cli", "llm.api_key=sk-x", f"working_dir={tempfile.mkdtemp()}"])
from remecli.ui.tui import collector_pauses
collector_pauses.hold()  # as the CLI does before it imports the app
before = sum(generation["collections"] for generation in gc.get_stats())
from remecli.ui.tui.app import RemeApp

class FirstFrame(RemeApp):
    def on_ready(self):
        super().on_ready()
        made = sum(generation["collections"] for generation in gc.get_stats()) - before
        print("FIRST FRAME", made, gc.isenabled(), flush=True)
        self.set_timer(0.3, self.later)

    def later(self):
        print("LATER", gc.isenabled(), gc.get_freeze_count() > 0, flush=True)
        self.exit()

FirstFrame(settings).run(headless=True, size=(100, 30))
"""


def test_no_garbage_collection_before_the_first_frame_and_as_usual_after() -> None:
    """Start-up makes objects that live as long as the app: scanning them is wasted."""
    proc = subprocess.run(
        [sys.executable, "-c", COLLECTOR], capture_output=True, text=True, timeout=120
    )
    lines = proc.stdout.splitlines()
    assert "FIRST FRAME 0 False" in lines, proc.stdout + proc.stderr[-3000:]
    assert "LATER True True" in lines, proc.stdout + proc.stderr[-3000:]
