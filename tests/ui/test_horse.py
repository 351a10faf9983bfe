"""The /horse overlay: fireworks, the galloping horse, the blessing, and getting out of it."""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from textual.app import App, ComposeResult
from textual.widgets import Input, Static

from remecli.ui.tui.horse import (
    FIREWORKS_FRAMES,
    HORSE_FRAMES,
    TOTAL_FRAMES,
    HorseCanvas,
    HorseScreen,
    HorseShow,
    Phase,
)
from remecli.ui.tui.horse_art import BLESSINGS, GREETING, SPARK_COLOURS

SIZES = [(80, 24), (200, 50)]
CHAT_TEXT = "you: hello\nassistant: hi, how can I help?"


class HostApp(App[None]):
    """A stand-in for the chat: a transcript and an input holding a draft."""

    def compose(self) -> ComposeResult:
        yield Static(CHAT_TEXT, id="chat")
        yield Input(value="half-typed draft", id="prompt")


def shown_lines(screen: HorseScreen) -> list[str]:
    """The text Textual paints for the overlay, line by line."""
    canvas = screen.query_one(HorseCanvas)
    return [canvas.render_line(y).text for y in range(canvas.size.height)]


def shown_colours(screen: HorseScreen) -> set[str]:
    canvas = screen.query_one(HorseCanvas)
    colours = set()
    for y in range(canvas.size.height):
        for segment in canvas.render_line(y):
            if segment.style and segment.style.color and segment.text.strip():
                colours.add(segment.style.color.get_truecolor().hex)
    return colours


async def push_horse(pilot, **options) -> HorseScreen:
    screen = HorseScreen(**options)
    pilot.app.push_screen(screen)
    await pilot.pause()
    assert pilot.app.screen is screen
    return screen


@pytest.mark.parametrize("size", SIZES)
async def test_show_starts_with_fireworks_then_horse_then_blessing(size):
    async with HostApp().run_test(size=size) as pilot:
        screen = await push_horse(pilot, seed=7, animate=False)
        canvas = screen.query_one(HorseCanvas)
        assert (canvas.size.width, canvas.size.height) == size

        assert screen.phase is Phase.FIREWORKS
        sparks = sum(line.count("*") + line.count("+") for line in shown_lines(screen))
        assert sparks >= 10
        assert shown_colours(screen) & {c.lower() for c in SPARK_COLOURS}

        screen.step(FIREWORKS_FRAMES + HORSE_FRAMES // 2 - screen.frame)
        await pilot.pause()
        assert screen.phase is Phase.HORSE
        half_blocks = sum(line.count("▀") + line.count("▄") for line in shown_lines(screen))
        assert half_blocks >= 200  # the horse: half blocks over ~48 x 16 cells or more

        screen.step(HORSE_FRAMES // 2 + 20)
        await pilot.pause()
        assert screen.phase is Phase.BLESSING
        text = "\n".join(shown_lines(screen))
        assert " ".join(screen.blessing.chinese) in text
        assert screen.blessing.english in text
        assert GREETING in text


@pytest.mark.parametrize("size", SIZES)
async def test_any_key_dismisses_and_leaves_the_chat_untouched(size):
    async with HostApp().run_test(size=size) as pilot:
        prompt = pilot.app.query_one("#prompt", Input)
        prompt.focus()
        await pilot.pause()
        chat_before = str(pilot.app.query_one("#chat", Static).render())

        screen = await push_horse(pilot, seed=1)
        await pilot.press("x")
        await pilot.pause()

        assert pilot.app.screen is not screen
        assert not isinstance(pilot.app.screen, HorseScreen)
        assert prompt.value == "half-typed draft"  # the key was not typed into the chat
        assert str(pilot.app.query_one("#chat", Static).render()) == chat_before
        assert pilot.app.focused is prompt


async def test_enter_and_escape_also_dismiss_without_reaching_the_chat():
    submitted: list[str] = []

    class SubmittingHost(HostApp):
        def on_input_submitted(self, event: Input.Submitted) -> None:
            submitted.append(event.value)

    async with SubmittingHost().run_test(size=(80, 24)) as pilot:
        pilot.app.query_one("#prompt", Input).focus()
        for key in ("enter", "escape"):
            await push_horse(pilot, animate=False)
            await pilot.press(key)
            await pilot.pause()
            assert not isinstance(pilot.app.screen, HorseScreen)
        assert submitted == []


async def test_click_dismisses():
    async with HostApp().run_test(size=(80, 24)) as pilot:
        await push_horse(pilot, seed=3, animate=False)
        await pilot.click(offset=(40, 12))
        await pilot.pause()
        assert not isinstance(pilot.app.screen, HorseScreen)


async def test_show_dismisses_itself_at_the_end():
    async with HostApp().run_test(size=(80, 24)) as pilot:
        screen = await push_horse(pilot, seed=5, animate=False)
        screen.step(TOTAL_FRAMES)
        await pilot.pause()
        assert screen.phase is Phase.DONE
        assert not isinstance(pilot.app.screen, HorseScreen)
        assert pilot.app.query_one("#prompt", Input).value == "half-typed draft"


async def test_animation_runs_on_its_own():
    async with HostApp().run_test(size=(80, 24)) as pilot:
        screen = await push_horse(pilot, seed=2, fps=60)
        for _ in range(200):  # wait for a few ticks, however slow the machine is
            if screen.frame >= 3:
                break
            await pilot.pause(0.02)
        assert screen.frame >= 3


async def test_start_frame_freezes_on_that_frame():
    async with HostApp().run_test(size=(80, 24)) as pilot:
        screen = await push_horse(pilot, seed=9, animate=False, start_frame=100)
        await pilot.pause(0.1)
        assert screen.frame == 100
        assert screen.phase is Phase.HORSE


@pytest.mark.parametrize("size", [(20, 5), (12, 3), (1, 1)])
async def test_tiny_terminals_do_not_crash(size):
    async with HostApp().run_test(size=size) as pilot:
        screen = await push_horse(pilot, seed=4, animate=False)
        while screen.phase is not Phase.DONE:
            lines = shown_lines(screen)
            assert all(cell_len(line) == size[0] for line in lines)
            screen.step(7)
            await pilot.pause()
        assert not isinstance(pilot.app.screen, HorseScreen)


def test_same_seed_same_show_and_seeds_vary():
    frames = (0, 30, 100, 170)

    def run(seed: int) -> list[list[str]]:
        show, out = HorseShow(seed, 80, 24), []
        for frame in frames:
            show.step(frame - show.frame)
            out.append(show.render().plain_lines())
        return out

    assert run(11) == run(11)
    assert run(11) != run(12)
    blessings = {HorseShow(seed).blessing for seed in range(40)}
    assert len(blessings) >= 4
    assert blessings <= set(BLESSINGS)


def test_resize_mid_show_keeps_going():
    show = HorseShow(6, 200, 50)
    show.step(40)
    show.resize(80, 24)
    show.step(1)
    lines = show.render().plain_lines()
    assert len(lines) == 24 and all(cell_len(line) == 80 for line in lines)
    assert all(-3 < p.x < 83 and p.y < 25 for p in show.particles)


class FrozenHorseApp(HostApp):
    """The snapshot: a fixed seed, frozen mid-gallop with fireworks still fading."""

    def on_mount(self) -> None:
        self.push_screen(HorseScreen(seed=2026, animate=False, start_frame=92))


def test_snapshot_horse_frame(snap_compare):
    assert snap_compare(FrozenHorseApp(), terminal_size=(80, 24))


async def test_show_that_ends_while_covered_leaves_once_uncovered():
    from textual.screen import ModalScreen

    async with HostApp().run_test(size=(80, 24)) as pilot:
        horse = await push_horse(pilot, seed=8, animate=False)
        cover = ModalScreen()
        pilot.app.push_screen(cover)
        await pilot.pause()
        horse.step(TOTAL_FRAMES)  # the show ends under another screen
        await pilot.pause()
        assert pilot.app.screen is cover
        pilot.app.pop_screen()
        await pilot.pause()
        assert horse not in pilot.app.screen_stack
        assert pilot.app.query_one("#prompt", Input).value == "half-typed draft"
