"""Notes for the model: what changed outside the conversation that it would otherwise not know.

`/undo` puts files back behind the model's back; its earlier replies still say they changed
them. The note rides on the next message the model gets (after the typed text, before any
attached files), so the model reads the files again instead of trusting its memory of them.
A resumed conversation shows only what was typed (`without_notes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

NOTE = "\n\n[remecli: "  # where the notes start in the text the model gets


class ModelNotes:
    """Notes waiting for the next message sent to the model."""

    def __init__(self) -> None:
        self.pending: list[str] = []

    def add(self, note: str) -> None:
        self.pending.append(note)

    def attach(self, text: str) -> str:
        """`text` with the waiting notes after it; they are then sent and no longer wait."""
        notes, self.pending = self.pending, []
        return text + "".join(f"{NOTE}{note}]" for note in notes)


def without_notes(text: str) -> str:
    """A user message without the notes remecli added to it."""
    return text.split(NOTE, 1)[0]


def undo_note(restored: Sequence[str], deleted: Sequence[str], language: str) -> str:
    """The note after `/undo` put `restored` back and removed `deleted` (prompts/undo_note)."""
    from remecli.config.prompt_files import load_prompt, render

    folder = Path(__file__).parent / "prompts"
    sep = "" if language == "zh" else " "
    changes = sep.join(  # only the lists that have files: no "Restored …: -."
        render(load_prompt(folder, name, language).strip(), files=", ".join(files))
        for name, files in (("undo_restored", restored), ("undo_deleted", deleted))
        if files
    )
    return render(load_prompt(folder, "undo_note", language).strip(), changes=changes)
