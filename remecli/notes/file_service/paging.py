"""The one paging of lines: which lines of a file (or text) a page shows, within a line count and
a size budget, while every line is counted. Every reader (the agent's `read`, the `memory_read`
job, the summarizer's and dream's `read`) pages through here and formats the page its own way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Page:
    """Lines `first_line`..`last_line` as rendered, and how many lines the source has.

    `exact_total` is False when counting stopped early (`keep_counting` said so): `total_lines`
    is then a lower bound.
    """

    lines: list[str]
    first_line: int
    total_lines: int
    exact_total: bool = True

    @property
    def last_line(self) -> int:
        """The number of the last line shown (`first_line - 1` when none is)."""
        return self.first_line + len(self.lines) - 1


def page_lines(
    lines: Iterable[T],
    start: int,
    count: int,
    render: Callable[[int, T], str],
    *,
    budget: int | None = None,
    cost: Callable[[str], int] = len,
    keep_counting: Callable[[], bool] | None = None,
) -> Page:
    """Lines `start`.. (1-based) of `lines`, at most `count`, rendered by `render(number, line)`.

    Only shown lines are rendered. With `budget`, lines are added while the sum of their
    `cost` stays within it; the first line is always shown (its caller cuts it if it must).
    Lines past the page are counted until `keep_counting()` (asked before each one) is False.
    """
    shown: list[str] = []
    used = 0
    total = 0
    full = False
    exact = True
    for total, line in enumerate(lines, 1):
        if full and keep_counting is not None and not keep_counting():
            exact = False
            break
        if total < start or full:
            continue
        rendered = render(total, line)
        if budget is not None:
            used += cost(rendered)
            if used > budget and shown:
                full = True
                continue
        shown.append(rendered)
        full = len(shown) >= count
    return Page(shown, start, total, exact)


def as_is(number: int, line: str) -> str:
    """A `render` that shows a line unchanged."""
    return line
