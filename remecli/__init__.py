"""remecli: a terminal assistant with long-term memory kept as Markdown files you own."""

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    """`from remecli import ReMe` loads the vector memory package only when asked for."""
    if name == "ReMe":
        from remecli.vector import ReMe

        return ReMe
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
