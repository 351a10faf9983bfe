"""Keep Python's full garbage collections out of a streaming answer.

A full (generation 2) collection scans every live object: with the agent loaded that is
~250k objects and a 0.15–0.3 s pause, long enough to stall the screen mid-answer. When the app
is idle (after start-up, after each reply) `settle` collects once and freezes what is live, so
later collections scan only what was made since. Each `settle` first unfreezes what the last one
froze, so objects that died since (a finished reply's stream state, replaced widgets) are freed
then: a long session's memory stays flat instead of each answer's leftovers staying frozen. `release` hands the frozen objects back to
the collector; call it before dropping many of them (clearing the chat, leaving the app), or
their cycles would never be freed.
"""

from __future__ import annotations

import gc


def hold() -> None:
    """Start-up: no collection until the first `settle` (the app settles once its first frame
    is drawn). What start-up makes (modules, classes, the first widgets) lives as long as the
    app, so the ~135 collections a start would make (one full) only cost time: ~45 ms CPU."""
    gc.disable()


def settle() -> None:
    """Collect everything now (the app is idle, earlier frozen objects included), then leave
    what is live out of later collections."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    gc.enable()


def release() -> None:
    """Let the collector see the frozen objects again (they are freed if unreachable), and
    collect as usual again."""
    gc.unfreeze()
    gc.enable()
