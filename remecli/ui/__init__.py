"""Front-ends: the Textual app (tui) and the line-mode REPL / one-shot printer (plain)."""
