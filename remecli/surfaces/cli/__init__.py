"""`remecli NAME …` subcommands: `*_commands.py` declare them with click (typed options, help),
the other modules hold the typed functions they call (imported only when a command runs)."""
