"""Wikilinks between memory notes: parsing, resolution, the derived graph, expansion, rename.

from remecli.notes.links import LinkGraph
graph = LinkGraph.open(working_dir)          # incremental; graph.rebuild() from scratch
graph.outlinks("memory/2025-01-31.md"), graph.backlinks("digest/wiki/deploy.md")
"""

from remecli.notes.links.expand import expand, link_summary, neighbours
from remecli.notes.links.graph import Edge, LinkGraph
from remecli.notes.links.parse import WikiLink, parse_note

__all__ = [
    "Edge",
    "LinkGraph",
    "WikiLink",
    "expand",
    "link_summary",
    "neighbours",
    "parse_note",
    "prompt_text",
]


def prompt_text(language: str = "") -> str:
    """The system-prompt section teaching search → links → read (English or `zh`)."""
    from pathlib import Path

    from remecli.config.prompt_files import load_prompt

    return load_prompt(Path(__file__).parent / "prompts", "memory_links", language)
