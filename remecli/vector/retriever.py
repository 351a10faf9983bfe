"""retrieve_memory: vector search per target (optionally fused with the keyword side), then an
optional grounded summary that cites memories with their times and shows conflicts."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from remecli.search.calibration import calibration_for
from remecli.search.fusion import fuse
from remecli.vector.conversation import as_json_list
from remecli.vector.filters import Condition
from remecli.vector.node import MemoryNode
from remecli.vector.prompts import prompt
from remecli.vector.terms import search_terms
from remecli.vector.values import JSONObject

if TYPE_CHECKING:
    import numpy as np

    from remecli.vector.chat import ChatClient
    from remecli.vector.reme import ReMe

CANDIDATES_PER_RESULT = 4
RECENT_USER_MESSAGES = 3  # of `messages`, joined to a retrieval's query
_DAY = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")


def query_from(query: str, messages: Sequence[object] | None) -> str:
    """The query followed by the last few user messages (what the conversation is about)."""
    recent = []
    for message in messages or []:
        role = message.get("role") if isinstance(message, dict) else getattr(message, "role", "")
        content = (
            message.get("content") if isinstance(message, dict) else getattr(message, "content", "")
        )
        if str(role) == "user" and isinstance(content, str) and content.strip():
            recent.append(content.strip())
    parts = [(query or "").strip(), *recent[-RECENT_USER_MESSAGES:]]
    return "\n".join(part for part in parts if part)


def days_named(query: str) -> list[str] | None:
    """[first, last] day named in the query as YYYY-MM-DD (the time filter), else None."""
    days = sorted(set(_DAY.findall(query)))
    return [days[0], days[-1]] if days else None


@dataclass
class RetrievalResult:
    """The retrieved nodes, best first (`score` set), and the summary when one was asked for.
    Iterating, indexing and `len()` go over the nodes."""

    query: str
    nodes: list[MemoryNode] = field(default_factory=list)
    summary: str | None = None

    def __iter__(self) -> Iterator[MemoryNode]:
        return iter(self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)

    def __getitem__(self, index: int) -> MemoryNode:
        return self.nodes[index]

    def to_dict(self) -> JSONObject:
        """JSON-ready form."""
        return {
            "query": self.query,
            "summary": self.summary,
            "memories": [n.to_dict() for n in self.nodes],
        }

    def __str__(self) -> str:
        lines = [str(n) for n in self.nodes] or ["(no memory found)"]
        return "\n".join(([self.summary, ""] if self.summary else []) + lines)


async def search_one(
    reme: ReMe,
    vector: np.ndarray,
    query: str,
    conditions: list[Condition],
    limit: int,
    keyword: bool,
    vector_weight: float,
) -> list[MemoryNode]:
    """Best `limit` nodes of one scope: cosine scores, or fused scores in [0, 1] with keywords.
    With a calibrated embedder (`search/calibration.py`) a node no closer to the query than
    ordinary text is dropped (gibberish found every memory, the nearest at cosine 0.74) and the
    fused vector side is its calibrated similarity, not its rank among the candidates."""
    pool = limit * CANDIDATES_PER_RESULT
    by_vector = await asyncio.to_thread(reme.store.vector_search, vector, conditions, pool)
    calibration = calibration_for(reme.embedder, "memories")
    similarity = (
        None if calibration is None else await asyncio.to_thread(calibration.scorer, vector)
    )
    if similarity is not None:
        by_vector = [n for n in by_vector if similarity(n.score or 0.0) > 0]
    by_keyword: list[MemoryNode] = []
    if keyword:
        terms = search_terms(query)
        by_keyword = await asyncio.to_thread(reme.store.keyword_search, terms, conditions, pool)
    if not by_keyword:
        return by_vector[:limit]
    nodes = {n.memory_id: n for n in by_keyword} | {n.memory_id: n for n in by_vector}
    ids = {memory_id: k for k, memory_id in enumerate(nodes)}
    fused = fuse(
        [(ids[n.memory_id], n.score or 0.0) for n in by_vector],
        [(ids[n.memory_id], n.score or 0.0) for n in by_keyword],
        vector_weight=vector_weight,
        similarity=similarity,
    )
    names = list(nodes)
    out = []
    for item in fused[:limit]:
        node = nodes[names[item.chunk_id]]
        node.score = round(item.score, 6)
        out.append(node)
    return out


async def grounded_summary(
    reme: ReMe,
    query: str,
    nodes: list[MemoryNode],
    chat: ChatClient | None = None,
    description: str = "",
) -> str:
    """A short answer citing [M1]… with times; conflicts shown, not hidden."""
    shown = [
        {
            "id": f"M{i}",
            "type": n.memory_type,
            "target": n.memory_target,
            "time": n.message_time or n.time_modified,
            "content": n.content,
        }
        for i, n in enumerate(nodes, start=1)
    ]
    asked = f"{query}\n(context: {description})" if description else query
    user = prompt("answer", reme.language, query=asked, memories=as_json_list(shown))
    chat = chat or reme.chat
    answer = await chat.complete(prompt("system", reme.language), user, what="memory summary")
    return str(answer.strip())
