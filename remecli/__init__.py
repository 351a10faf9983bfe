"""remecli: a terminal assistant with long-term memory kept as Markdown files you own."""

__version__ = "0.1.0"
