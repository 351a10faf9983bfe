"""A new node a small model answered without writing it: the node is made by code.

Measured on Qwen2.5-Coder 1.5B: given one unit to integrate into an empty digest, it answered
with the JSON receipt alone (`{"action": "REFINE", "path": "digest/procedure/<new>.md", …}`)
and called no tool, twice in a row, so the unit failed and its cards were retried on every
later dream. When the agent changed nothing and its receipt names an action on a node that does
not exist (which can only be a CREATE), the node is the one its answer holds (a
frontmatter block with `name` and `description`), else one made from the unit itself — the
extraction's name and summary, its cards as `## Sources` — at the path the receipt names (a new
`digest/<bucket>/<slug>.md`) or at `digest/<unit's bucket>/<slug of its name>.md`. It is then
checked and recorded like any node the agent wrote; a path that exists already is not taken.
"""

from __future__ import annotations

import re

from remecli.knowledge.cards.card import join_frontmatter, slugify
from remecli.knowledge.dream.digest import ACTIONS, BUCKETS, SOURCES_TITLES, node_problem
from remecli.knowledge.dream.extract import Unit
from remecli.notes.frontmatter import read_frontmatter
from remecli.notes.frontmatter_repair import frontmatter_blocks, without_trailing_fences

_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*")
_H2 = re.compile(r"^##\s+(.+?)\s*$", re.MULTILINE)
DESCRIPTION_LIMIT = 200


def _description(summary: str) -> str:
    """The summary's first sentence, at most `DESCRIPTION_LIMIT` characters."""
    first = _SENTENCE_END.split(summary.strip(), maxsplit=1)[0].strip() or summary.strip()
    return first if len(first) <= DESCRIPTION_LIMIT else first[: DESCRIPTION_LIMIT - 1] + "…"


def _with_sources(body: str, unit: Unit) -> str:
    """`body` ending with a `## Sources` section (the unit's cards when it has none)."""
    headings = [m.group(1).strip().lower() for m in _H2.finditer(body)]
    if headings and headings[-1] in SOURCES_TITLES:
        return body
    lines = "".join(f"- {unit.name}: [[{card}]]\n" for card in unit.paths)
    return body.rstrip("\n") + "\n\n## Sources\n" + lines


def node_from_unit(unit: Unit) -> str:
    """A node saying what the unit says, sourced by its cards."""
    meta = {"name": unit.name.strip(), "description": _description(unit.summary)}
    return join_frontmatter(meta, _with_sources(unit.summary.strip() + "\n", unit))


def node_in_answer(answer: str, unit: Unit) -> str | None:
    """The node written out in `answer` (its `## Sources` added when missing), or None."""
    for block in frontmatter_blocks(answer):
        note = read_frontmatter(without_trailing_fences(block))
        meta = note.meta if not note.problem else {}
        named = str(meta.get("name") or "").strip() and str(meta.get("description") or "")
        if named.strip() and note.body.strip():
            return join_frontmatter(dict(meta), _with_sources(note.body, unit))
    return None


def _is_node_path(path: str) -> bool:
    """True for `digest/<bucket>/<slug>.md`."""
    parts = path.split("/")
    return (
        len(parts) == 3
        and parts[0] == "digest"
        and parts[1] in BUCKETS
        and parts[2].endswith(".md")
        and slugify(parts[2].removesuffix(".md")) == parts[2].removesuffix(".md")
    )


def created_node(
    unit: Unit, answer: str, receipt: dict[str, object], existing: dict[str, str]
) -> tuple[str, str] | None:
    """(path, text) of the node an answer without a write stands for, or None when it has no
    receipt or names a node that exists (the digest's other actions need a write)."""
    if str(receipt.get("action") or "").strip().upper() not in ACTIONS:
        return None
    named = str(receipt.get("path") or "").strip()  # any action on a node that is not there
    slug = slugify(unit.name)
    path = named if _is_node_path(named) else ""
    path = path or (f"digest/{unit.bucket}/{slug}.md" if slug else "")
    if not path or path in existing:
        return None
    text = node_in_answer(answer, unit) or node_from_unit(unit)
    return (path, text) if node_problem(path, text) is None else None
