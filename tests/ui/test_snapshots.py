"""Snapshot tests of the main screens at a fixed size (pytest-textual-snapshot).

Regenerate after an intended visual change, then look at the SVGs:
`python -m pytest tests/ui/test_snapshots.py --snapshot-update`.
The app runs in a fixed folder so paths on screen are the same on every machine.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from remecli.ui.tui.screens.approval_screen import ApprovalScreen
from remecli.ui.tui.widgets.status_line import StatusLine
from tests.ui.test_app_pilot import make_app, type_and_send, wait_until

SIZE = (100, 30)
FIXED = Path("/tmp/remecli-snapshot")


SNAPSHOTS = Path(__file__).parent / "screen_snapshots"  # not syrupy's folder: it would prune these


@pytest.fixture
def svg_snapshot(request):
    """Compare the app's SVG screenshot (Textual's own snapshot renderer) with the stored one.

    Like pytest-textual-snapshot's `snap_compare`, but the CSS class prefix Rich derives from a
    hash of segment reprs (which carry per-process random link ids) and a tool call's measured
    duration are normalised first, so an identical picture always compares equal. `--snapshot-update` rewrites the stored files.
    """
    from textual._doc import take_svg_screenshot

    def compare(app, *, run_before=None) -> bool:
        svg = take_svg_screenshot(app=app, terminal_size=SIZE, run_before=run_before)
        svg = re.sub(r"terminal-\d+", "terminal", svg)
        svg = re.sub(r"(&#160;·&#160;)\d+\.\ds\b", r"\g<1>0.0s", svg)  # a tool's duration varies
        path = SNAPSHOTS / f"{request.node.name}.svg"
        if request.config.getoption("--snapshot-update"):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(svg, encoding="utf-8")
            return True
        if not path.exists():
            pytest.fail(f"no stored snapshot {path}; run with --snapshot-update and review it")
        if svg != path.read_text(encoding="utf-8"):
            failed = path.with_suffix(".actual.svg")
            failed.write_text(svg, encoding="utf-8")
            pytest.fail(f"screen differs from {path.name}; see {failed} (not committed)")
        return True

    return compare


@pytest.fixture
def fixed_dir(monkeypatch) -> Path:
    shutil.rmtree(FIXED, ignore_errors=True)
    FIXED.mkdir(parents=True)
    monkeypatch.chdir(FIXED)
    yield FIXED
    shutil.rmtree(FIXED, ignore_errors=True)


async def _ready(pilot) -> None:
    pilot.app.boot()  # as the first key typed does: the meter then counts prompt and tools
    # the same tools in every run (memory_search joins once the index is open): same meter
    await wait_until(pilot, lambda: "memory_search" in dict(pilot.app.assistant.tool_names))
    await wait_until(
        pilot,
        lambda: pilot.app.query_one(StatusLine).state == "ready" and not pilot.app.replying,
    )
    await pilot.pause(0.1)


async def _settle(pilot) -> None:
    await wait_until(pilot, lambda: not pilot.app.replying)
    await pilot.pause(0.3)


def still_app(fake_llm, fixed_dir):
    """The app with animations off (a still spinner), as TEXTUAL_ANIMATIONS=none gives."""
    app = make_app(fake_llm, fixed_dir)
    app.animation_level = "none"
    return app


def test_empty_chat(svg_snapshot, fake_llm, fixed_dir) -> None:
    assert svg_snapshot(still_app(fake_llm, fixed_dir), run_before=_ready)


def test_answer_with_code_block_and_tool_panel(svg_snapshot, fake_llm, fixed_dir) -> None:
    (fixed_dir / "hello.py").write_text("print('hi')\n")
    fake_llm.add_tool_calls([("read", {"path": "hello.py"})], text="Let me look.")
    fake_llm.add_text(
        "It prints a greeting:\n\n```python\nprint('hi')\n```\n\nRun it with `python hello.py`.",
        chunk_size=7,
    )

    async def run(pilot) -> None:
        await _ready(pilot)
        await type_and_send(pilot, "what does hello.py do?")
        await _settle(pilot)

    assert svg_snapshot(still_app(fake_llm, fixed_dir), run_before=run)


def test_approval_prompt(svg_snapshot, fake_llm, fixed_dir) -> None:
    fake_llm.add_tool_calls([("bash", {"command": "git push --force origin main"})])
    fake_llm.set_fallback("ok")

    async def run(pilot) -> None:
        await _ready(pilot)
        await type_and_send(pilot, "push it")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ApprovalScreen))
        await pilot.pause(0.3)

    assert svg_snapshot(still_app(fake_llm, fixed_dir), run_before=run)


def test_help_screen(svg_snapshot, fake_llm, fixed_dir) -> None:
    async def run(pilot) -> None:
        await _ready(pilot)
        await type_and_send(pilot, "/help")
        await pilot.pause(0.3)

    assert svg_snapshot(still_app(fake_llm, fixed_dir), run_before=run)
