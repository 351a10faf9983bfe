"""How the /horse show looks: colours, the horse's pixel frames, blessings, and the cell grid
they are drawn on (with the blessing card).

The horse is pixel art drawn with half-block characters (two pixels per terminal cell, stacked
vertically), facing right. Its body is a fixed bitmap; the legs are drawn from joint
coordinates so that the four gallop poses are easy to read and to tweak.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

SKY = "#0b0e1c"
"""The night sky behind the show."""

SPARK_COLOURS: tuple[str, ...] = (
    "#ff4d4d",  # red
    "#ffd43b",  # gold
    "#ff922b",  # orange
    "#f783ac",  # pink
    "#4dabf7",  # blue
    "#69db7c",  # green
)
"""The six firework colours."""

DUST_COLOUR = "#9c7c5a"
GROUND_COLOUR = "#3a3550"
BOX_BACKGROUND = "#8f1010"
BOX_BORDER = "#ffd43b"
GOLD = "#ffd43b"
CREAM = "#fff4d6"

PIXEL_COLOURS: dict[str, str] = {
    "g": "#f2b632",  # gold body, near side
    "o": "#b7791f",  # darker gold, far side and shadow
    "r": "#e03131",  # red mane and tail
    "k": "#3b2408",  # eye and hooves
}
"""Colour of each pixel letter; '.' is transparent."""

# The body without legs, 48 x 21 pixels. Legs hang from row 19 down to row 31.
_BODY = """
........................................g.g.....
.......................................rggg.....
.....................................rrgggggg...
....................................rrgggkggg...
...................................rrggggggggg..
..................................rrgggggggggggg
.................................rrggggggggggggg
................................rrgggggggggggggg
...............................rrgggggggggggggg.
..............................rrgggggggggg......
.............................rrggggggggg........
...rrrrr.....gggggggg.......rrgggggggggg........
.rrrrrrrrr..ggggggggggggggggrggggggggggggg......
rrrr..rrrrrggggggggggggggggggggggggggggggg......
rr.....rrrrgggggggggggggggggggggggggggggggg.....
r.......rrgggggggggggggggggggggggggggggggg......
.........rggggggggggggggggggggggggggggggg.......
.........r.gggggggggggggggggggggggggggggg.......
..........ogggggggggggggggggggggggggggg.........
...........oggggggggggggggggggggggggg...........
............ooggggggo.......ooogggg.............
"""

HORSE_WIDTH = 48
HORSE_HEIGHT = 32
"""Size of every horse frame in pixels (columns x pixel rows; two pixel rows per cell)."""

Point = tuple[int, int]
Leg = tuple[Point, Point, Point]
"""A leg as hip, knee and hoof (x, y) in pixels."""

# Four gallop poses: (front near, front far, hind near, hind far), plus a body lift in pixels.
_POSES: tuple[tuple[tuple[Leg, Leg, Leg, Leg], int], ...] = (
    # stretched out: front legs reach forward, hind legs push back
    (
        (
            ((33, 19), (38, 24), (44, 28)),
            ((30, 19), (35, 24), (40, 29)),
            ((16, 19), (11, 24), (5, 28)),
            ((13, 19), (8, 24), (2, 29)),
        ),
        0,
    ),
    # front legs land, hind legs swing forward
    (
        (
            ((33, 19), (34, 25), (34, 30)),
            ((30, 19), (34, 24), (39, 26)),
            ((16, 19), (13, 24), (9, 29)),
            ((13, 19), (14, 25), (12, 30)),
        ),
        0,
    ),
    # gathered: all four legs tucked under the body, in the air
    (
        (
            ((33, 19), (29, 24), (33, 27)),
            ((30, 19), (27, 25), (31, 28)),
            ((16, 19), (21, 24), (19, 29)),
            ((13, 19), (18, 25), (16, 30)),
        ),
        1,
    ),
    # hind legs land, front legs fold up ready to reach
    (
        (
            ((33, 19), (37, 23), (36, 27)),
            ((30, 19), (31, 25), (29, 30)),
            ((16, 19), (15, 25), (16, 30)),
            ((13, 19), (10, 24), (6, 29)),
        ),
        0,
    ),
)


def _draw_line(canvas: list[list[str]], start: Point, end: Point, colour: str) -> None:
    """Draw a two-pixel-wide line between two points."""
    (x0, y0), (x1, y1) = start, end
    steps = max(abs(x1 - x0), abs(y1 - y0), 1)
    for i in range(steps + 1):
        x = round(x0 + (x1 - x0) * i / steps)
        y = round(y0 + (y1 - y0) * i / steps)
        for dx in (0, 1):
            if 0 <= y < HORSE_HEIGHT and 0 <= x + dx < HORSE_WIDTH:
                canvas[y][x + dx] = colour


def _draw_leg(canvas: list[list[str]], leg: Leg, colour: str) -> None:
    hip, knee, hoof = leg
    _draw_line(canvas, hip, knee, colour)
    _draw_line(canvas, knee, hoof, colour)
    x, y = hoof
    for dx in (0, 1):
        if 0 <= y < HORSE_HEIGHT and 0 <= x + dx < HORSE_WIDTH:
            canvas[y][x + dx] = "k"


def _build_frame(pose: tuple[Leg, Leg, Leg, Leg], lift: int) -> tuple[str, ...]:
    canvas = [["."] * HORSE_WIDTH for _ in range(HORSE_HEIGHT)]
    front_near, front_far, hind_near, hind_far = pose
    # far legs first so the near legs cover them
    _draw_leg(canvas, front_far, "o")
    _draw_leg(canvas, hind_far, "o")
    body = [row for row in _BODY.strip().splitlines()]
    for y, row in enumerate(body):
        for x, pixel in enumerate(row):
            if pixel != ".":
                canvas[y][x] = pixel
    _draw_leg(canvas, front_near, "g")
    _draw_leg(canvas, hind_near, "g")
    if lift:
        canvas = canvas[lift:] + [["."] * HORSE_WIDTH for _ in range(lift)]
    return tuple("".join(row) for row in canvas)


GALLOP_FRAMES: tuple[tuple[str, ...], ...] = tuple(_build_frame(p, lift) for p, lift in _POSES)
"""The gallop cycle: each frame is HORSE_HEIGHT strings of HORSE_WIDTH pixel letters."""


@dataclass(frozen=True)
class Blessing:
    """A horse-year blessing: the Chinese idiom, its pinyin and an English gloss."""

    chinese: str
    pinyin: str
    english: str


BLESSINGS: tuple[Blessing, ...] = (
    Blessing("马到成功", "mǎ dào chéng gōng", "success the moment the horse arrives"),
    Blessing("龙马精神", "lóng mǎ jīng shén", "the vigour of a dragon-horse"),
    Blessing("一马当先", "yì mǎ dāng xiān", "one horse takes the lead"),
    Blessing("万马奔腾", "wàn mǎ bēn téng", "ten thousand horses galloping ahead"),
    Blessing("马上有钱", "mǎ shàng yǒu qián", "wealth arrives at once (on horseback)"),
    Blessing("马上有福", "mǎ shàng yǒu fú", "good fortune arrives at once"),
    Blessing("快马加鞭", "kuài mǎ jiā biān", "spur the swift horse on: full speed ahead"),
    Blessing("金马迎春", "jīn mǎ yíng chūn", "the golden horse welcomes spring"),
)
"""The blessings /horse picks from."""

GREETING = "Happy Year of the Horse 2026!"
GREETING_ZH = "马年大吉"


def fade(colour: str, amount: float) -> str:
    """`colour` mixed towards the sky: amount 1 is the full colour, 0 is the sky."""
    amount = max(0.0, min(1.0, amount))
    a, b = SKY.lstrip("#"), colour.lstrip("#")
    mixed = (
        round(int(a[i : i + 2], 16) * (1 - amount) + int(b[i : i + 2], 16) * amount)
        for i in (0, 2, 4)
    )
    return "#" + "".join(f"{c:02x}" for c in mixed)


class Grid:
    """A screen-sized grid of cells: a character and a style per cell."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.chars = [[" "] * width for _ in range(height)]
        self.styles = [[f"on {SKY}"] * width for _ in range(height)]

    def put(self, x: int, y: int, char: str, style: str) -> None:
        """Set one cell, ignoring cells off the grid."""
        if 0 <= x < self.width and 0 <= y < self.height:
            self.chars[y][x] = char
            self.styles[y][x] = style

    def put_text(self, x: int, y: int, text: str, style: str) -> None:
        """Write text from (x, y); wide (CJK) characters take two cells; clipped at the edges."""
        for char in text:
            width = cell_len(char)
            if width == 2 and x + 1 >= self.width:
                break
            self.put(x, y, char, style)
            if width == 2:
                self.put(x + 1, y, "", style)
            x += width

    def put_pixels(self, left: int, top_pixel: int, rows: tuple[str, ...], scale: int) -> None:
        """Draw pixel art with half blocks; each cell holds two pixels, one above the other."""
        height_px, width_px = len(rows) * scale, len(rows[0]) * scale
        for cy in range(top_pixel // 2, (top_pixel + height_px + 1) // 2 + 1):
            if not 0 <= cy < self.height:
                continue
            for cx in range(max(0, left), min(self.width, left + width_px)):
                col = (cx - left) // scale
                top = self._pixel(rows, col, 2 * cy - top_pixel, scale, height_px)
                bottom = self._pixel(rows, col, 2 * cy + 1 - top_pixel, scale, height_px)
                if top and bottom:
                    self.put(cx, cy, "▀", f"{top} on {bottom}")
                elif top:
                    self.put(cx, cy, "▀", f"{top} on {SKY}")
                elif bottom:
                    self.put(cx, cy, "▄", f"{bottom} on {SKY}")

    @staticmethod
    def _pixel(rows: tuple[str, ...], col: int, py: int, scale: int, height_px: int) -> str | None:
        if not 0 <= py < height_px:
            return None
        return PIXEL_COLOURS.get(rows[py // scale][col])

    def plain_lines(self) -> list[str]:
        """The grid as plain text, one string per row."""
        return ["".join(row) for row in self.chars]

    def to_strips(self, cache: dict[str, Style]) -> list[Strip]:
        """The grid as Textual strips, merging runs of cells that share a style."""
        strips = []
        for chars, styles in zip(self.chars, self.styles, strict=True):
            segments: list[Segment] = []
            run, run_style = "", styles[0] if styles else ""
            for char, style in zip(chars, styles, strict=True):
                if style != run_style:
                    segments.append(Segment(run, cached_style(run_style, cache)))
                    run, run_style = "", style
                run += char
            if run:
                segments.append(Segment(run, cached_style(run_style, cache)))
            strips.append(Strip(segments, self.width))
        return strips


def cached_style(text: str, cache: dict[str, Style]) -> Style:
    style = cache.get(text)
    if style is None:
        style = cache[text] = Style.parse(text)
    return style


def _blessing_lines(blessing: Blessing, elapsed: int) -> list[tuple[str, str]]:
    """(text, style) lines of the blessing, the Chinese revealed one character at a time."""
    shown = blessing.chinese[: 1 + elapsed // 3]
    box = f"on {BOX_BACKGROUND}"
    return [
        (" ".join(shown), f"bold {GOLD} {box}"),
        (blessing.pinyin, f"italic #f3c9a0 {box}"),
        (f'"{blessing.english}"', f"{CREAM} {box}"),
        ("", box),
        (GREETING, f"bold {GOLD} {box}"),
        (GREETING_ZH, f"{CREAM} {box}"),
    ]


def draw_blessing(grid: Grid, blessing: Blessing, elapsed: int, ground_row: int) -> None:
    """The blessing card, centred; the Chinese appears one character every three frames.

    On big screens the horse stands under the card; on small ones only the key lines show.
    """
    lines = _blessing_lines(blessing, elapsed)
    full_width = max(cell_len(blessing.chinese) * 2, *(cell_len(t) for t, _ in lines))
    pad_x, pad_y = (4, 1) if grid.height < 40 else (6, 2)
    box_w, box_h = full_width + 2 * pad_x + 2, len(lines) + 2 * pad_y + 2
    if box_w > grid.width or box_h > grid.height:
        _draw_compact_blessing(grid, lines)
        return
    horse_rows = HORSE_HEIGHT // 2
    room_for_horse = grid.width >= 100 and grid.height >= box_h + horse_rows + 6
    spare = grid.height - box_h - (horse_rows + 2 if room_for_horse else 0)
    left, top = (grid.width - box_w) // 2, spare // 2
    if room_for_horse:  # the horse has arrived: it stands under the blessing
        ground = ground_row
        for x in range(grid.width):
            grid.put(x, ground, "▔", f"{GROUND_COLOUR} on {SKY}")
        horse_left = (grid.width - HORSE_WIDTH) // 2
        grid.put_pixels(horse_left, 2 * ground - HORSE_HEIGHT, GALLOP_FRAMES[1], 1)
    border = f"{BOX_BORDER} on {BOX_BACKGROUND}"
    for y in range(top, top + box_h):
        fill = "│" + " " * (box_w - 2) + "│"
        if y in (top, top + box_h - 1):
            ends = "╭╮" if y == top else "╰╯"
            fill = ends[0] + "─" * (box_w - 2) + ends[1]
        grid.put_text(left, y, fill, border)
    for i, (text, style) in enumerate(lines):
        x = left + (box_w - cell_len(text)) // 2
        grid.put_text(x, top + 1 + pad_y + i, text, style)


def _draw_compact_blessing(grid: Grid, lines: list[tuple[str, str]]) -> None:
    """Small screens: no box, only the most important lines that fit."""
    chinese, _pinyin, english, _blank, greeting, _zh = lines
    for keep in ([chinese, english, greeting], [chinese, greeting], [chinese]):
        if len(keep) <= grid.height:
            break
    top = (grid.height - len(keep)) // 2
    for i, (text, style) in enumerate(keep):
        x = max(0, (grid.width - cell_len(text)) // 2)
        grid.put_text(x, top + i, text, style)
