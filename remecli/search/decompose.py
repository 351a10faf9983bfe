"""Model-free decomposition of a multi-part question into parts searched on their own.

Two shapes are split: clauses ("When did Jon open his studio and what did he sell?", two
questions in one line) and a pair of names joined by "and" / "&" / a comma ("What do Jon and
Gina both like?" → one query per name, "both" dropped). A question with neither has no parts.
"""

from __future__ import annotations

import re

_ASKING = (
    r"(?:what|when|where|who|whom|whose|why|how|which|did|does|do|is|are|was|were|has|have"
    r"|had|can|could|would|should|will)"
)
_CLAUSE_BREAK = re.compile(rf"\s*(?:[;?]+|,?\s+and\s+(?={_ASKING}\b)|,\s*(?={_ASKING}\b))\s*", re.I)
_NAME = r"[A-Z][\w'’-]+"
_NAME_PAIR = re.compile(rf"\b({_NAME})(?:\s*,\s*|\s+and\s+|\s*&\s*)({_NAME})\b")
_TOGETHER = re.compile(r"\s+(?:both|each|together)\b", re.I)
_MIN_WORDS = 2


def _name_split(text: str) -> list[str]:
    """One query per name of the first "Name and Name" pair (not at the very start)."""
    match = _NAME_PAIR.search(text)
    if match is None or match.start() == 0:
        return []
    head, tail = text[: match.start()], _TOGETHER.sub("", text[match.end() :])
    return [f"{head}{name}{tail}" for name in match.groups()]


def _names(text: str) -> list[str]:
    """Capitalized words after the first one (the question's people, places, things)."""
    return list(dict.fromkeys(re.findall(rf"(?<=\s){_NAME}", text)))


def sub_queries(query: str) -> list[str]:
    """The parts of a multi-part question (none when it has one part), each different from
    the question and from each other. A clause that names no one takes the question's names ("who did he
    come back with" → "... Evan")."""
    clauses = [c for c in _CLAUSE_BREAK.split(query.strip()) if len(c.split()) >= _MIN_WORDS]
    parts: list[str] = []
    if len(clauses) > 1:
        names = _names(query)
        for clause in clauses:
            own = _names(clause)
            parts.append(clause if own else " ".join([clause, *names]))
    for text in clauses or [query]:
        parts += _name_split(text)
    whole = query.strip().rstrip("?").strip().lower()
    unique: dict[str, str] = {}
    for part in parts:
        key = part.strip().rstrip("?").strip().lower()
        if key and key != whole:
            unique.setdefault(key, part.strip())
    return list(unique.values())
