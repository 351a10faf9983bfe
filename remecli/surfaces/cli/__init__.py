"""`remecli NAME …` subcommands: each module parses its arguments and calls the core."""
