"""The integration agent's tools: read / write / edit confined to the digest, with every change
staged in memory (never written to `digest/` by the agent), and `search_digest` over the digest
as the agent sees it (disk plus its staged changes).

Staging is what makes a dream safe to kill: until the code has verified the agent's work and
set the node's provenance, nothing reaches `digest/`; the one accepted node is then written
once, so each logical change of a node is one version in its history.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from remecli.knowledge.cards.card import CardError, is_slug, read_card
from remecli.knowledge.dream.digest import BUCKETS, digest_dir, search_nodes, snapshot
from remecli.knowledge.summary.tools import (
    CHANGED_HINT,
    ChangeRefused,
    MemoryFileTools,
    MemoryScope,
)
from remecli.llm.message import ToolOutput
from remecli.llm.tool_results import error, ok
from remecli.notes.layout import WorkingDir
from remecli.notes.writer import MemoryWriter


class DigestScope(MemoryScope):
    """Read cards, MEMORY.md and the digest; change only digest nodes."""

    reason = "dream"

    def readable(self, note: str) -> bool:
        """MEMORY.md, memory/**/*.md and digest/**/*.md."""
        return note.startswith("digest/") or super().readable(note)

    def writable(self, target: Path) -> str | None:
        """Only `digest/<bucket>/<slug>.md`."""
        digest = digest_dir(self.working_dir).resolve()
        if (
            target.suffix == ".md"
            and target.parent.parent == digest
            and target.parent.name in BUCKETS
            and is_slug(target.stem)
        ):
            return None
        return self.allowed()

    def allowed(self) -> str:
        """What this scope allows."""
        return (
            "You may read MEMORY.md, memory/**/*.md and digest/**/*.md; you may change only "
            "digest nodes digest/<personal|procedure|wiki>/<slug>.md (slug: lower-case words "
            "joined by `-`)."
        )

    def missing_hint(self, target: Path) -> str:
        """Nothing extra."""
        return ""

    def prepare(self, target: Path, old: str | None, new: str, tool: str) -> str:
        """A node must keep valid frontmatter."""
        try:
            note = read_card(new)
        except CardError as exc:
            raise ChangeRefused(f"Refused: {exc} Nothing was written.") from None
        if not note.has_frontmatter:
            raise ChangeRefused(
                "Refused: a node starts with YAML frontmatter (`name`, `description`) between "
                "`---` lines. Nothing was written."
            )
        return new


class StagedFileTools(MemoryFileTools):
    """MemoryFileTools whose changes are kept in `staged` (relative path → text), not written.

    Reads see the staged text first, so the agent works as if its writes had landed.
    """

    def __init__(self, working_dir: WorkingDir, scope: DigestScope, writer: MemoryWriter) -> None:
        super().__init__(working_dir, scope.date, scope, writer=writer)  # never used to write
        self.staged: dict[str, str] = {}

    def _current(self, target: Path) -> str | None:
        staged = self.staged.get(self.relative(target))
        return staged if staged is not None else super()._current(target)

    def _commit(self, target: Path, expected: str | None, text: str, message: str) -> ToolOutput:
        """Stage `text` if the file (as the agent sees it) still holds `expected`."""
        if self._current(target) != expected:
            return error(CHANGED_HINT)
        name = self.relative(target)
        self.staged[name] = text
        self._known[target] = text
        if name not in self.written:
            self.written.append(name)
        return ok(message, path=name)


class DigestSearch:
    """The `search_digest` tool over the digest as the agent sees it now."""

    def __init__(self, working_dir: WorkingDir, staged: dict[str, str] | None = None) -> None:
        self.working_dir = working_dir
        self.staged = staged if staged is not None else {}

    def nodes(self) -> dict[str, str]:
        """The digest on disk with the agent's staged changes over it."""
        return {**snapshot(self.working_dir), **self.staged}

    async def search_digest(self, query: str, limit: int | None = None) -> ToolOutput:
        """Find digest nodes by words; answers JSON hits (path, name, description, kind, status).

        Args:
            query: Words to look for, e.g. "postgres version atlas".
            limit: The most hits to return (default 5).
        """
        try:
            count = 5 if limit is None else min(max(int(limit), 1), 20)
        except (TypeError, ValueError):
            count = 5
        nodes = await asyncio.to_thread(self.nodes)
        hits = await asyncio.to_thread(search_nodes, nodes, str(query), count)
        text = json.dumps(hits, ensure_ascii=False)
        return ok(text)
