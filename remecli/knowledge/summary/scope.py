"""The summarizer's scope in the card layout: it may change only this conversation's card.

Reads may look at any memory file; a change may target only the conversation's card of the day
(or create it, as `memory/YYYY-MM-DD/<topic-slug>.md`, when it has none). Every change is checked
by `card_change_problem` (timeline append-only, nothing dropped) and gets the code-owned
frontmatter fields (`session_id`, `source_conversation`, `date`, and `project` when the
conversation's transcript names one).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from remecli.knowledge.cards.card import (
    CardError,
    apply_card_fields,
    day_folder,
    is_slug,
    transcript_project,
)
from remecli.knowledge.cards.rules import card_change_problem
from remecli.knowledge.summary.prompts import without_card_examples
from remecli.knowledge.summary.tools import ChangeRefused, MemoryScope
from remecli.notes.layout import WorkingDir

RESERVED_STEMS = ("interests",)


class CardScope(MemoryScope):
    """Read the memory files, change only the card of (`date`, `session_id`)."""

    def __init__(
        self,
        working_dir: WorkingDir,
        date: dt.date,
        session_id: str,
        lines: tuple[int, int] | None,
        card: Path | None,
    ) -> None:
        super().__init__(working_dir, date)
        self.session_id = session_id
        self.lines = lines
        # the conversation's project, as its transcript records it (the card's `project:`)
        self.project = transcript_project(working_dir.transcript_file(session_id))
        self.folder = day_folder(working_dir, date).resolve()
        self.card = card.resolve() if card is not None else None

    def folder_name(self) -> str:
        """`memory/YYYY-MM-DD` as shown to the model."""
        return self.relative(self.folder)

    def writable(self, target: Path) -> str | None:
        """Only the card; a new card only while the conversation has none."""
        if self.card is not None:
            if target == self.card:
                return None
            return (
                f"This conversation's card is {self.relative(self.card)}: change only that file "
                "(`read` it, then `edit`)."
            )
        if target.parent != self.folder or target.suffix != ".md":
            return self.allowed()
        if not is_slug(target.stem) or target.stem in RESERVED_STEMS:
            return (
                f"Name the card after its topic: {self.folder_name()}/<topic-slug>.md with "
                "lower-case words joined by `-` (e.g. atlas-database-choice.md)."
            )
        if target.exists():
            return "That name is another conversation's card: choose a different topic name."
        return None

    def allowed(self) -> str:
        """What this scope allows, said after a refusal."""
        where = (
            self.relative(self.card)
            if self.card is not None
            else f"a new card {self.folder_name()}/<topic-slug>.md"
        )
        return (
            "You may read MEMORY.md and memory/**/*.md under the working dir; you may change "
            f"only {where}."
        )

    def missing_hint(self, target: Path) -> str:
        """Nothing extra: the prompt says how a card starts."""
        return ""

    def prepare(self, target: Path, old: str | None, new: str, tool: str) -> str:
        """Drop the prompt's example lines a small model copied, check the card rules and set
        the code-owned frontmatter fields."""
        name = self.relative(target)
        new = without_card_examples(new, old or "")
        if old is not None:
            problem = card_change_problem(name, old, new)
            if problem:
                raise ChangeRefused(problem)
        try:
            return apply_card_fields(
                new,
                session_id=self.session_id,
                day=self.date,
                lines=self.lines,
                previous=old,
                project=self.project,
            )
        except CardError as exc:
            raise ChangeRefused(f"Refused: {exc} Nothing was written to {name}.") from None

    def committed(self, target: Path) -> None:
        """The card now exists: later changes go to it."""
        self.card = target
