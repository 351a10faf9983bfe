"""Which part of a conversation a compaction folds: the newest atoms within a token budget stay,
the rest goes into the checkpoint, cut only between atoms (a tool call stays with its result)."""

from __future__ import annotations

from typing import Any

from remecli.conversation.entries import CompactionPlan, Entry
from remecli.llm.blocks import MSG_OVERHEAD, block_key, group_atoms
from remecli.llm.conversation_state import with_blocks


def plan_compaction(
    live: list[tuple[str, Entry]], keep_recent_tokens: int, keep_last_up_to: int = 0
) -> CompactionPlan:
    """Keep the newest atoms within `keep_recent_tokens`; the rest is to be compacted.

    Cuts only between atoms (see `group_atoms`), so a tool call is never separated from
    its result, whichever message they live in. The newest atom is kept even beyond the
    budget when it costs at most `keep_last_up_to` tokens (the model keeps seeing the
    result it just asked for).
    """
    atoms: list[tuple[int, Any, list[Any], int]] = []
    for position, (_mid, entry) in enumerate(live):
        source = entry.ctx if entry.ctx is not None else entry.msg
        blocks = [b for b in source.content if block_key(b) in entry.live]
        for atom in group_atoms(blocks):
            tokens = sum(entry.live.get(block_key(b), 0) for b in atom)
            atoms.append((position, source, atom, tokens))
    cut, kept, seen_positions = len(atoms), 0, set()
    for i in range(len(atoms) - 1, -1, -1):
        position, _src, _atom, tokens = atoms[i]
        cost = tokens + (0 if position in seen_positions else MSG_OVERHEAD)
        if kept + cost > keep_recent_tokens:
            break
        kept += cost
        seen_positions.add(position)
        cut = i
    if cut == len(atoms) and atoms and atoms[-1][3] + MSG_OVERHEAD <= keep_last_up_to:
        cut, kept = len(atoms) - 1, atoms[-1][3] + MSG_OVERHEAD
    covered: dict[str, list[str]] = {}
    grouped: dict[str, tuple[Any, list[Any]]] = {}
    for _position, source, atom, _tokens in atoms[:cut]:
        covered.setdefault(source.id, []).extend(block_key(b) for b in atom)
        grouped.setdefault(source.id, (source, []))[1].extend(atom)
    messages = [with_blocks(src, blocks) for src, blocks in grouped.values()]
    to_compact = sum(t for *_rest, t in atoms[:cut])
    return CompactionPlan(messages=messages, covered=covered, tokens=to_compact, kept_tokens=kept)
