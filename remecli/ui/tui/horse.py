"""The /horse easter egg: fireworks, a galloping horse, then a horse-year blessing.

`HorseScreen` is a modal screen pushed over the chat; any key or click dismisses it, and it
dismisses itself when the show ends. The show itself (`HorseShow`) is plain Python advanced one
frame at a time, so tests and snapshots can step it to any frame with a fixed seed.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from enum import StrEnum

from rich.style import Style
from textual import events
from textual.app import ComposeResult
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

from remecli.ui.tui.horse_art import (
    BLESSINGS,
    CREAM,
    DUST_COLOUR,
    GALLOP_FRAMES,
    GOLD,
    GROUND_COLOUR,
    HORSE_HEIGHT,
    HORSE_WIDTH,
    SKY,
    SPARK_COLOURS,
    Blessing,
    Grid,
    cached_style,
    draw_blessing,
    fade,
)

FPS = 20
FIREWORKS_FRAMES = 70
HORSE_FRAMES = 70
BLESSING_FRAMES = 90
TOTAL_FRAMES = FIREWORKS_FRAMES + HORSE_FRAMES + BLESSING_FRAMES
"""Phase lengths in frames (at FPS frames a second: 3.5 s, 3.5 s, 4.5 s)."""

HINT = "any key to close"
_DRAG = 0.88


class Phase(StrEnum):
    """Where the show is."""

    FIREWORKS = "fireworks"
    HORSE = "horse"
    BLESSING = "blessing"
    DONE = "done"


def phase_at(frame: int) -> Phase:
    """The phase shown at a frame number."""
    if frame < FIREWORKS_FRAMES:
        return Phase.FIREWORKS
    if frame < FIREWORKS_FRAMES + HORSE_FRAMES:
        return Phase.HORSE
    if frame < TOTAL_FRAMES:
        return Phase.BLESSING
    return Phase.DONE


@dataclass
class Particle:
    """A spark, a rising rocket, or a speck of dust, in cell coordinates."""

    x: float
    y: float
    vx: float
    vy: float
    colour: str
    decay: float
    kind: str = "spark"
    life: float = 1.0
    burst_row: float = 0.0


class HorseShow:
    """The show's state for one screen size, advanced frame by frame; seeded for repeatability."""

    def __init__(self, seed: int | None = None, width: int = 80, height: int = 24) -> None:
        self._rng = random.Random(seed)
        self.blessing: Blessing = self._rng.choice(BLESSINGS)
        self.width, self.height = max(1, width), max(1, height)
        self.frame = 0
        self.particles: list[Particle] = []
        self._stars = [(self._rng.random(), self._rng.random() * 0.7) for _ in range(90)]
        self._explode(self.width * 0.5, self.height * 0.35, head_start=4)

    @property
    def phase(self) -> Phase:
        """The current phase."""
        return phase_at(self.frame)

    @property
    def horse_scale(self) -> int:
        """How many cells wide (and half-cells tall) each horse pixel is."""
        return max(1, min(self.width // 80, self.height // 22))

    def resize(self, width: int, height: int) -> None:
        """Adapt to a new screen size, moving particles proportionally."""
        width, height = max(1, width), max(1, height)
        if (width, height) == (self.width, self.height):
            return
        sx, sy = width / self.width, height / self.height
        for p in self.particles:
            p.x, p.y, p.burst_row = p.x * sx, p.y * sy, p.burst_row * sy
        self.width, self.height = width, height

    def step(self, frames: int = 1) -> None:
        """Advance the show by `frames` frames (stops advancing once it is done)."""
        for _ in range(max(0, frames)):
            if self.phase is Phase.DONE:
                return
            self._launch_rockets()
            if self.phase is Phase.HORSE:
                self._kick_dust()
            for particle in list(self.particles):  # sparks born this frame move next frame
                self._move(particle)
            self.particles = [p for p in self.particles if self._alive(p)]
            self.frame += 1

    # -- simulation ---------------------------------------------------------------------------

    @property
    def _burst_radius(self) -> float:
        return max(2.0, min(12.0, self.height * 0.3, self.width * 0.15))

    def _launch_rockets(self) -> None:
        phase, rng = self.phase, self._rng
        if phase is Phase.FIREWORKS and self.frame < FIREWORKS_FRAMES - 8:
            rate, span = min(0.6, 0.15 + self.width * self.height / 16_000), (0.08, 0.92)
        elif phase is Phase.BLESSING:
            rate, span = 0.12, rng.choice(((0.04, 0.22), (0.78, 0.96)))
        else:
            return
        if rng.random() >= rate:
            return
        start = self.height - 1.0
        low = max(self.height * 0.12, self._burst_radius * 0.8)
        burst_row = rng.uniform(low, max(low, self.height * 0.45))
        rise = rng.randint(8, 13)
        x, vx, vy = (
            self.width * rng.uniform(*span),
            rng.uniform(-0.15, 0.15),
            -(start - burst_row) / rise,
        )
        rocket = Particle(x, start, vx, vy, rng.choice(SPARK_COLOURS), 0.0, "rocket")
        rocket.burst_row = burst_row
        self.particles.append(rocket)

    def _explode(self, x: float, y: float, colour: str | None = None, head_start: int = 0) -> None:
        rng, radius = self._rng, self._burst_radius
        colour = colour or rng.choice(SPARK_COLOURS)
        second = rng.choice(SPARK_COLOURS) if rng.random() < 0.3 else colour
        count = max(16, min(64, int(8 + radius * 4.5)))
        sparks = []
        for i in range(count):
            angle = 2 * math.pi * i / count + rng.uniform(-0.15, 0.15)
            reach = rng.uniform(0.75, 1.0) if i % 4 else rng.uniform(0.2, 0.7)
            speed = radius * reach * (1 - _DRAG) / _DRAG
            vx, vy = math.cos(angle) * speed * 2, math.sin(angle) * speed
            hue = second if i % 2 else colour
            sparks.append(Particle(x, y, vx, vy, hue, rng.uniform(0.028, 0.045)))
        for _ in range(head_start):
            for spark in sparks:
                self._move(spark)
        self.particles.extend(sparks)

    def _kick_dust(self) -> None:
        rng = self._rng
        left, ground = self._horse_left(), self._ground_row()
        scale = self.horse_scale
        for _ in range(2):
            x, vx, vy = (
                left + rng.uniform(0, 12) * scale,
                rng.uniform(-0.6, -0.1),
                rng.uniform(-0.35, -0.05),
            )
            self.particles.append(
                Particle(x, ground - 0.5, vx, vy, DUST_COLOUR, rng.uniform(0.06, 0.1), "dust")
            )
        if rng.random() < 0.5:  # a few golden sparkles trail off the horse's back
            x, y = left + rng.uniform(8, 24) * scale, ground - HORSE_HEIGHT * scale * 0.3
            vx, vy = rng.uniform(-0.8, -0.2), rng.uniform(-0.2, 0.1)
            self.particles.append(Particle(x, y, vx, vy, GOLD, rng.uniform(0.05, 0.08)))

    def _move(self, p: Particle) -> None:
        gravity = 0.03 * max(1.0, self.height / 24)
        p.x += p.vx
        p.y += p.vy
        if p.kind == "rocket":
            self.particles.append(Particle(p.x, p.y + 0.6, 0.0, 0.05, GOLD, 0.2, "ember"))
            if p.y <= p.burst_row:
                p.life = 0.0
                self._explode(p.x, p.y, p.colour)
            return
        p.vx *= _DRAG
        p.vy = p.vy * _DRAG + (gravity * 0.2 if p.kind == "dust" else gravity)
        p.life -= p.decay

    def _alive(self, p: Particle) -> bool:
        return p.life > 0 and -3 < p.x < self.width + 3 and p.y < self.height + 1

    # -- layout -------------------------------------------------------------------------------

    def _ground_row(self) -> int:
        return self.height - 2 if self.height >= 8 else self.height

    def _horse_left(self) -> int:
        width = HORSE_WIDTH * self.horse_scale
        progress = (self.frame - FIREWORKS_FRAMES) / HORSE_FRAMES
        return round(-width + progress * (self.width + width))

    # -- drawing ------------------------------------------------------------------------------

    def render(self) -> Grid:
        """Draw the current frame."""
        grid = Grid(self.width, self.height)
        self._draw_stars(grid)
        self._draw_particles(grid)
        if self.phase is Phase.HORSE:
            self._draw_horse(grid)
        elif self.phase is Phase.BLESSING:
            elapsed = self.frame - FIREWORKS_FRAMES - HORSE_FRAMES
            draw_blessing(grid, self.blessing, elapsed, self._ground_row())
        if self.width >= 40 and self.height >= 10:
            grid.put_text(self.width - len(HINT) - 1, self.height - 1, HINT, f"#5c6080 on {SKY}")
        return grid

    def _draw_stars(self, grid: Grid) -> None:
        count = min(len(self._stars), self.width * self.height // 40)
        for i, (fx, fy) in enumerate(self._stars[:count]):
            bright = (self.frame // 6 + i) % 9 == 0
            grid.put(
                int(fx * self.width),
                int(fy * self.height),
                "+" if bright else ".",
                f"{'#8a90c0' if bright else '#3c4168'} on {SKY}",
            )

    def _draw_particles(self, grid: Grid) -> None:
        for p in self.particles:  # streaks behind fast sparks first, so heads cover them
            if p.kind == "spark" and p.life > 0.55 and abs(p.vx) + abs(p.vy) > 0.25:
                tail = f"{fade(p.colour, p.life * 0.6)} on {SKY}"
                grid.put(round(p.x - p.vx * 1.5), round(p.y - p.vy * 1.5), ".", tail)
        for p in self.particles:
            x, y = round(p.x), round(p.y)
            if p.kind == "rocket":
                grid.put(x, y, "|", f"bold {CREAM} on {SKY}")
            elif p.kind in ("dust", "ember"):
                grid.put(
                    x, y, "," if p.kind == "dust" else ".", f"{fade(p.colour, p.life)} on {SKY}"
                )
            else:
                char = "*" if p.life > 0.7 else "+" if p.life > 0.4 else "."
                bold = "bold " if p.life > 0.7 else ""
                grid.put(x, y, char, f"{bold}{fade(p.colour, p.life * 1.4)} on {SKY}")

    def _draw_horse(self, grid: Grid) -> None:
        scale, ground = self.horse_scale, self._ground_row()
        for x in range(self.width):
            grid.put(x, ground, "▔", f"{GROUND_COLOUR} on {SKY}")
        rows = GALLOP_FRAMES[(self.frame // 2) % len(GALLOP_FRAMES)]
        grid.put_pixels(self._horse_left(), 2 * ground - HORSE_HEIGHT * scale, rows, scale)


class HorseCanvas(Widget):
    """Paints the show's current frame, filling its screen."""

    DEFAULT_CSS = """
    HorseCanvas {
        width: 1fr;
        height: 1fr;
    }
    """

    def __init__(self, show: HorseShow) -> None:
        super().__init__()
        self.show = show
        self._styles: dict[str, Style] = {}
        self._key: tuple[int, int, int] | None = None
        self._strips: list[Strip] = []
        self._grid: Grid | None = None

    def on_resize(self, event: events.Resize) -> None:
        self.show.resize(event.size.width, event.size.height)
        self.refresh()

    def current_grid(self) -> Grid:
        """The grid of the frame on screen now (drawn once per frame and size)."""
        key = (self.show.frame, self.show.width, self.show.height)
        if self._grid is None or key != self._key:
            self._key, self._grid = key, self.show.render()
            self._strips = self._grid.to_strips(self._styles)
        return self._grid

    def render_line(self, y: int) -> Strip:
        self.current_grid()
        if 0 <= y < len(self._strips):
            return self._strips[y].crop(0, self.size.width)
        return Strip.blank(self.size.width, cached_style(f"on {SKY}", self._styles))


class HorseScreen(ModalScreen[None]):
    """The /horse overlay. `seed` fixes the randomness; `animate=False` freezes on `start_frame`."""

    DEFAULT_CSS = f"""
    HorseScreen {{
        background: {SKY};
    }}
    """

    def __init__(
        self,
        seed: int | None = None,
        *,
        animate: bool = True,
        start_frame: int = 0,
        fps: float = FPS,
    ) -> None:
        super().__init__()
        self.show = HorseShow(seed)
        self._auto_play = animate
        self._start_frame = start_frame
        self._fps = fps
        self._timer: Timer | None = None
        self._dismissing = False
        self._close_pending = False

    @property
    def phase(self) -> Phase:
        """The phase on screen."""
        return self.show.phase

    @property
    def frame(self) -> int:
        """The frame number on screen."""
        return self.show.frame

    @property
    def blessing(self) -> Blessing:
        """The blessing this show ends with."""
        return self.show.blessing

    def compose(self) -> ComposeResult:
        yield HorseCanvas(self.show)

    def on_mount(self) -> None:
        self.show.resize(self.app.size.width, self.app.size.height)
        self.step(self._start_frame)
        if self._auto_play:
            self._timer = self.set_interval(1 / self._fps, self.step)

    def step(self, frames: int = 1) -> None:
        """Advance the show by `frames` frames and repaint; closes the screen when the show ends."""
        self.show.step(frames)
        self.query_one(HorseCanvas).refresh()
        if self.show.phase is Phase.DONE:
            self.close()

    def screen_text(self) -> str:
        """The frame on screen as plain text (for tests and debugging)."""
        return "\n".join(self.query_one(HorseCanvas).current_grid().plain_lines())

    def close(self) -> None:
        """End the show and return to the screen underneath (once; deferred while covered)."""
        if self._timer is not None:
            self._timer.stop()
        if self._dismissing:
            return
        if self.app.screen is not self:  # another screen is on top: leave once back on top
            self._close_pending = True
            return
        self._dismissing = True
        self.dismiss(None)

    def on_screen_resume(self) -> None:
        if self._close_pending:
            self.close()

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        self.close()

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.close()
