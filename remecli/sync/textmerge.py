"""Three-way merges that understand notes (run by git through `merge_driver`).

- Lines (`merge_lines`): `git merge-file` three-way by line; where both sides only inserted
  lines at the same place (two facts appended to MEMORY.md, two turns to a transcript) both are
  kept, this side's first; a line changed differently on both sides is a conflict, kept from
  both sides between `<<<<<<< this-machine` / `=======` / `>>>>>>> other-machine` lines.
- Notes with frontmatter (`merge_note`): list fields (sources, tags) merge as sets (an item
  either side removed stays removed), a field changed on one side takes that change; a field
  changed differently on both sides makes the whole file a line merge (a visible conflict).
- Day pages: the generated card list (`<!-- cards:auto -->`) merges as a set of lines; the sync
  regenerates it from the cards afterwards.
Two files added on both sides (no common version) merge against the lines they share; a new
machine's starter MEMORY.md gives way to the other side's.
"""

from __future__ import annotations

import difflib
import re
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from remecli.config.locations import MEMORY_MD_HEADER
from remecli.notes.frontmatter import read_frontmatter, write_frontmatter

MARK = 7
_DAY_PAGE = re.compile(r"^memory/\d{4}-\d{2}-\d{2}\.md$")
_CONFLICT = re.compile(r"^<{7} .*$(?:.|\n)*?^>{7} ", re.MULTILINE)


@dataclass(frozen=True)
class Merged:
    """A merge's text and whether a conflict was kept in it (from both sides)."""

    text: str
    conflicted: bool


def has_conflict(text: str) -> bool:
    """True while `text` holds a conflict block a sync kept (not resolved yet)."""
    return bool(_CONFLICT.search(text))


def _common_base(ours: list[str], theirs: list[str]) -> list[str]:
    """The lines both sides share, in order: the base of two files added on both sides."""
    matcher = difflib.SequenceMatcher(None, ours, theirs, autojunk=False)
    return [line for a, _b, n in matcher.get_matching_blocks() for line in ours[a : a + n]]


def _diff3(base: str, ours: str, theirs: str) -> str:
    with tempfile.TemporaryDirectory(prefix="remecli-merge-") as folder:
        names = []
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(folder) / name
            path.write_bytes(text.encode("utf-8", "surrogateescape"))
            names.append(str(path))
        done = subprocess.run(
            ["git", "merge-file", "-p", "--diff3", "-L", "o", "-L", "b", "-L", "t", *names],
            capture_output=True,
        )
    if done.returncode < 0 or done.returncode > 127:
        raise OSError(done.stderr.decode("utf-8", "replace").strip() or "git merge-file failed")
    return done.stdout.decode("utf-8", "surrogateescape")


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _ended(lines: list[str]) -> list[str]:
    return [line if line.endswith("\n") else line + "\n" for line in lines]


def merge_lines(base: str | None, ours: str, theirs: str, labels: tuple[str, str]) -> Merged:
    """`ours` and `theirs` merged three-way by line against `base` (None: added on both)."""
    if ours == theirs:
        return Merged(ours, False)
    if base is None:
        base = "".join(_common_base(_lines(ours), _lines(theirs)))
    if ours == base:
        return Merged(theirs, False)
    if theirs == base:
        return Merged(ours, False)
    out: list[str] = []
    conflicted = False
    side: str | None = None
    parts: dict[str, list[str]] = {"o": [], "b": [], "t": []}
    for line in _lines(_diff3(base, ours, theirs)):
        marker = line[:MARK]
        if side is None and marker == "<" * MARK and line[MARK : MARK + 3] == " o\n":
            side, parts = "o", {"o": [], "b": [], "t": []}
        elif side == "o" and marker == "|" * MARK:
            side = "b"
        elif side == "b" and line == "=" * MARK + "\n":
            side = "t"
        elif side == "t" and marker == ">" * MARK:
            conflicted |= _resolve(parts, labels, out)
            side = None
        elif side is not None:
            parts[side].append(line)
        else:
            out.append(line)
    return Merged("".join(out), conflicted)


def _both(first: list[str], then: list[str]) -> list[str]:
    """`first`, then the lines of `then` it does not hold already (blank lines kept)."""
    seen = {line.strip() for line in first if line.strip()}
    extra = [line for line in then if not line.strip() or line.strip() not in seen]
    return _ended(first) + extra if extra else first


def _weave(base: list[str], kept: list[str], changed: list[str]) -> list[str] | None:
    """`kept` (the base lines in order, with lines inserted between them) with the base lines
    changed as in `changed`: line by line in place when `changed` has as many lines, else all
    of `changed` where the first base line was. None when `kept` changed a base line itself."""
    matcher = difflib.SequenceMatcher(None, base, kept, autojunk=False)
    at = [
        kept_at
        for b, kept_at, n in matcher.get_matching_blocks()
        for kept_at in range(kept_at, kept_at + n)
    ]
    if len(at) != len(base):
        return None
    if len(changed) == len(base):
        swap = dict(zip(at, _ended(changed), strict=True))
        return [swap.get(i, line) for i, line in enumerate(_ended(kept))]
    first, dropped = at[0], set(at)
    lines = _ended(kept)
    return [
        *lines[:first],
        *_ended(changed),
        *(line for i, line in enumerate(lines) if i > first and i not in dropped),
    ]


def _resolve(parts: dict[str, list[str]], labels: tuple[str, str], out: list[str]) -> bool:
    """One conflict hunk into `out`: both insertions kept, or the two sides marked. True when
    a conflict was kept."""
    base, ours, theirs = parts["b"], parts["o"], parts["t"]
    if not "".join(base).strip():  # only inserted at the same place: keep both
        out.extend(_both(ours, theirs))
        return False
    n = len(base)
    if len(ours) == n == len(theirs):  # neighbouring lines, each changed on one side only
        lines = [
            o if t in (b, o) else t if o == b else None
            for b, o, t in zip(base, ours, theirs, strict=True)
        ]
        if None not in lines:
            out.extend(_ended([line for line in lines if line is not None]))
            return False
    for kept, changed in ((ours, theirs), (theirs, ours)):  # one side only added lines
        if kept[:n] == base:  # after the lines the other side changed
            out.extend(_both(changed, kept[n:]))
            return False
        if kept[len(kept) - n :] == base:  # before them
            out.extend(_both(kept[: len(kept) - n], changed))
            return False
        woven = _weave(base, kept, changed)  # between them
        if woven is not None:
            out.extend(woven)
            return False
    out.append(f"{'<' * MARK} {labels[0]}\n")
    out.extend(_ended(parts["o"]))
    out.append("=" * MARK + "\n")
    out.extend(_ended(parts["t"]))
    out.append(f"{'>' * MARK} {labels[1]}\n")
    return True


T = TypeVar("T")  # a list's items: card lines, frontmatter list values


def _set_merge(base: Sequence[T], ours: Sequence[T], theirs: Sequence[T]) -> list[T]:
    """Three-way set merge: what either side added is in, what either side removed is out."""
    removed = [item for item in base if item not in ours or item not in theirs]
    merged = [item for item in ours if item not in removed]
    merged += [item for item in theirs if item not in merged and item not in removed]
    return merged


_MISSING = object()


def _merge_meta(
    base: Mapping[str, object], ours: Mapping[str, object], theirs: Mapping[str, object]
) -> dict[str, object] | None:
    """The merged frontmatter (YAML values, compared and passed on), or None when a field
    changed differently on both sides."""
    merged: dict[str, object] = {}
    for key in [*ours, *(k for k in theirs if k not in ours)]:
        b, o, t = (side.get(key, _MISSING) for side in (base, ours, theirs))
        if o == t or t == b:
            value = o
        elif o == b:
            value = t
        elif isinstance(o, list) and isinstance(t, list):
            value = _set_merge(b if isinstance(b, list) else [], o, t)
        else:
            return None
        if value is not _MISSING:
            merged[key] = value
    return merged


def merge_note(
    path: str, base: str | None, ours: str, theirs: str, labels: tuple[str, str]
) -> Merged:
    """Merge one file of the memory (see the module docstring); `path` relative, POSIX."""
    if base is None and path == "MEMORY.md" and MEMORY_MD_HEADER in (ours, theirs):
        return Merged(theirs if ours == MEMORY_MD_HEADER else ours, False)  # a new machine's
    if _DAY_PAGE.match(path):
        return _merge_day_page(base, ours, theirs, labels)
    o, t = read_frontmatter(ours), read_frontmatter(theirs)
    if not (o.has_frontmatter and t.has_frontmatter):
        return merge_lines(base, ours, theirs, labels)
    b = read_frontmatter(base) if base is not None else None
    meta = _merge_meta(b.meta if b is not None else {}, o.meta, t.meta)
    if meta is None:
        return merge_lines(base, ours, theirs, labels)
    body = merge_lines(b.body if b is not None else None, o.body, t.body, labels)
    if meta == o.meta:
        head = ours[: len(ours) - len(o.body)]
        return Merged(head + body.text, body.conflicted)
    return Merged(write_frontmatter(meta, body.text, order=list(o.meta)), body.conflicted)


def _split_block(text: str) -> tuple[str, list[str]]:
    """The page with its card list replaced by the bare markers, and the list's lines."""
    from remecli.knowledge.cards.day_page import (  # day pages only
        BLOCK_END,
        BLOCK_START,
        block_span,
    )

    span = block_span(text)
    if span is None:
        return text, []
    inner = text[span[0] + len(BLOCK_START) : span[1] - len(BLOCK_END)]
    rest = text[: span[0]] + f"{BLOCK_START}\n{BLOCK_END}" + text[span[1] :]
    return rest, [line for line in inner.splitlines() if line.strip()]


def _merge_day_page(base: str | None, ours: str, theirs: str, labels: tuple[str, str]) -> Merged:
    o_rest, o_cards = _split_block(ours)
    t_rest, t_cards = _split_block(theirs)
    b_rest, b_cards = _split_block(base) if base is not None else (None, [])
    rest = merge_lines(b_rest, o_rest, t_rest, labels)
    cards = _set_merge(b_cards, o_cards, t_cards)
    from remecli.knowledge.cards.day_page import BLOCK_END, BLOCK_START

    empty = f"{BLOCK_START}\n{BLOCK_END}"
    if empty not in rest.text:
        return rest
    block = "\n".join([BLOCK_START, *cards, BLOCK_END])
    return Merged(rest.text.replace(empty, block, 1), rest.conflicted)
