"""Slash-command autocomplete: the matching commands with their one-line help."""

from __future__ import annotations

from textual.widgets import OptionList
from textual.widgets.option_list import Option


class CommandMenu(OptionList):
    """Shown above the input while the text is a `/prefix`; Tab or click completes."""

    DEFAULT_CSS = """
    CommandMenu { height: auto; max-height: 9; display: none; border: round $accent; margin: 0 1; }
    CommandMenu.-visible { display: block; }
    """

    can_focus = False
    mode = "commands"  # or "paths": completing an `@path` mention

    def show_paths(self, paths: list[str]) -> None:
        """Offer workspace paths for an `@` mention (hidden when none match)."""
        self.mode = "paths"
        self.clear_options()
        for path in paths:
            self.add_option(Option(f"@{path}", id=path))
        if paths:
            self.highlighted = 0
        self.set_class(bool(paths), "-visible")

    def show_for(self, text: str) -> None:
        """Refresh the options for the input `text` (hidden when nothing matches)."""
        self.mode = "commands"
        from remecli.commands import complete  # the registry: not needed for the first frame

        matches = complete(text.lstrip()) if "\n" not in text else []
        self.clear_options()
        for command in matches:
            self.add_option(Option(f"/{command.name:<9} {command.summary}", id=command.name))
        if matches:
            self.highlighted = 0
        self.set_class(bool(matches), "-visible")

    @property
    def is_open(self) -> bool:
        """True while suggestions are shown."""
        return self.has_class("-visible")

    def selected_name(self) -> str | None:
        """The highlighted command's name."""
        if self.highlighted is None or not self.is_open:
            return None
        return self.get_option_at_index(self.highlighted).id
