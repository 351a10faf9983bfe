"""The command palette's provider: every slash command (the registry loads when the palette
is first opened, not before the app's first frame)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider


class SlashCommands(Provider):
    """Every slash command in the command palette (listed before anything is typed, too)."""

    async def discover(self) -> Hits:
        from remecli.commands import COMMANDS

        for name, command in COMMANDS.items():
            yield DiscoveryHit(f"/{name}", self._runner(name), help=command.summary)

    async def search(self, query: str) -> Hits:
        from remecli.commands import COMMANDS

        matcher = self.matcher(query)
        for name, command in COMMANDS.items():
            score = matcher.match(f"/{name} {command.summary}")
            if score > 0:
                yield Hit(
                    score, matcher.highlight(f"/{name}"), self._runner(name), help=command.summary
                )

    def _runner(self, name: str) -> Callable[[], Any]:
        app: Any = self.app
        return lambda: app.submit(f"/{name}")
