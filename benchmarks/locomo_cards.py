"""Cards beside the transcripts, for `locomo_recall.py --cards`: "digest nodes as hubs".

In real use remecli's summarizer writes topic cards from each conversation: short facts, each
citing the transcript lines it came from. LoCoMo ships such facts per session, written by a model
from the same conversations (`observation`: `[fact, "D3:5"]`, by speaker). Here each session's
facts become one card, `memory/cards/session_NN.md`: a heading with the session's date, one fact
per line. A hit on a fact line counts for the turns the fact cites, as an agent reading that hit
has the fact (and its source link). This measures what cards add to the search; it is not the
defaults' figure on the raw conversations.
"""

from __future__ import annotations

import re

_DIA = re.compile(r"D:?(\d+):0*(\d+)")

Line = tuple[str, int]  # (relative path, line number)


def _cited(raw: object) -> list[str]:
    """The dia_ids a fact cites ("D3:5", "D3:5, D3:7" or a list of them)."""
    texts = raw if isinstance(raw, list) else [raw]
    return [f"D{s}:{t}" for text in texts for s, t in _DIA.findall(str(text))]


def write_cards(
    sample: dict, working_dir, where: dict[str, Line], per: str = "session"
) -> dict[Line, list[Line]]:
    """Write the facts as cards, one per session (`per="session"`) or one per fact
    (`per="fact"`); (card path, line) → the turn lines the fact on that line cites."""
    conversation = sample["conversation"]
    folder = working_dir / "memory" / "cards"
    folder.mkdir(parents=True, exist_ok=True)
    cites: dict[Line, list[Line]] = {}
    cards: dict[str, list[str]] = {}
    for key, by_speaker in sorted(sample.get("observation", {}).items()):
        found = re.fullmatch(r"session_(\d+)_observation", key)
        if not found:
            continue
        n = int(found.group(1))
        heading = f"# Facts from session {n} ({conversation.get(f'session_{n}_date_time', '')})"
        number = 0
        for facts in by_speaker.values():
            for fact, raw in facts:
                number += 1
                name = f"session_{n:02d}" if per == "session" else f"session_{n:02d}_{number:03d}"
                rel = f"memory/cards/{name}.md"
                lines = cards.setdefault(rel, [heading, ""])
                lines.append(f"- {str(fact).replace(chr(10), ' ')}")
                cites[(rel, len(lines))] = [where[d] for d in _cited(raw) if d in where]
    for rel, lines in cards.items():
        target = working_dir / rel
        content = "\n".join(lines) + "\n"
        if not target.exists() or target.read_text(encoding="utf-8") != content:
            target.write_text(content, encoding="utf-8")
    return cites


def through_cards(
    hits: list[tuple[str, int, int]], cites: dict[Line, list[Line]]
) -> list[tuple[str, int, int]]:
    """`hits` plus, for each fact line a hit covers, the turn lines that fact cites."""
    extra = [
        (path, line, line)
        for hit_path, start, end in hits
        for number in range(start, end + 1)
        for path, line in cites.get((hit_path, number), [])
    ]
    return hits + extra
