"""summarize_memory: keep the conversation as a history node, let the model extract candidate
memories per target, then decide ADD / UPDATE / DELETE / NONE for each candidate against the
most similar memories already stored (so duplicates and stale facts do not pile up)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from remecli.llm.json_answer import json_from_answer
from remecli.vector.chat import says_nothing
from remecli.vector.conversation import Transcript, as_json_list
from remecli.vector.node import HISTORY, PROCEDURAL, MemoryNode, normalize_time
from remecli.vector.prompts import prompt
from remecli.vector.stores import DuplicateContentError
from remecli.vector.values import JSON, JSONObject

if TYPE_CHECKING:
    from remecli.vector.chat import ChatClient
    from remecli.vector.profiles import ProfileRow
    from remecli.vector.reme import ReMe

log = logging.getLogger(__name__)

SIMILAR_PER_CANDIDATE = 5
PROMPT_KIND = {PROCEDURAL: "task"}
# what extraction asks for (a server with structured output then answers bare JSON; measured on
# Qwen2.5-Coder 1.5B asked in words: "<nothing to store>" for a decision and a personal fact)
_NULLABLE: JSON = {"type": ["string", "null"]}
EXTRACTION_SCHEMA: JSONObject = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "content": {"type": "string"},
            "when_to_use": {"type": "string"},
            "message_time": _NULLABLE,
            "profile_key": _NULLABLE,
            "profile_value": _NULLABLE,
        },
        "required": ["content", "when_to_use"],
    },
}  # procedural memory's prompt is extract_task
ACTIONS = ("ADD", "UPDATE", "DELETE", "NONE")


def _candidate(item: object, kind: str, target: str, author: str, source: str) -> MemoryNode | None:
    """The memory an extraction answer's item (a JSON object, or bare text) names, if any."""
    if isinstance(item, str):
        item = {"content": item}
    if not isinstance(item, dict) or not str(item.get("content") or "").strip():
        return None
    try:
        when = normalize_time(item.get("message_time")) or ""
    except ValueError:
        when = ""
    return MemoryNode(
        memory_type=kind,
        memory_target=target,
        content=str(item["content"]).strip(),
        when_to_use=str(item.get("when_to_use") or "").strip(),
        message_time=when,
        author=author,
        ref_memory_id=source,
        metadata={"source": source},
    )


def profile_rows(items: Sequence[object]) -> list[ProfileRow]:
    """The `profile_key` / `profile_value` pairs of an extraction answer's items."""
    rows: list[ProfileRow] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        key, value = item.get("profile_key"), item.get("profile_value")
        if isinstance(key, str) and key.strip() and value not in (None, ""):
            try:
                when = normalize_time(item.get("message_time")) or ""
            except ValueError:
                when = ""
            rows.append(
                {"profile_key": key.strip(), "profile_value": str(value), "message_time": when}
            )
    return rows


async def extract(
    reme: ReMe,
    kind: str,
    target: str,
    transcript: Transcript,
    source: str,
    chat: ChatClient | None = None,
    description: str = "",
    profiles: list[ProfileRow] | None = None,
) -> list[MemoryNode]:
    """Candidate memories of one target (empty for small talk); one retry on unreadable JSON.
    `description` (what the conversation is about) is shown to the model before it; lasting
    attributes the model names (`profile_key` / `profile_value`) are appended to `profiles`."""
    chat = chat or reme.chat
    text = f"({description})\n{transcript.text}" if description else transcript.text
    user = prompt(
        f"extract_{PROMPT_KIND.get(kind, kind)}", reme.language, target=target, conversation=text
    )
    system = prompt("system", reme.language)
    for _attempt in range(2):
        answer = await chat.complete_json(
            system, user, EXTRACTION_SCHEMA, what=f"{kind} memory extraction"
        )
        if isinstance(answer, str) and says_nothing(answer):
            return []
        items = json_from_answer(answer) if isinstance(answer, str) else answer
        if isinstance(items, dict):
            items = items.get("memories") or [items]
        if isinstance(items, list):
            author = chat.settings.model_name
            found = [_candidate(i, kind, target, author, source) for i in items]
            if profiles is not None:
                profiles.extend(profile_rows(items))
            return [c for c in found if c is not None]
        log.warning("unreadable %s extraction answer: %.200s", kind, answer)
    return []


async def reconcile(
    reme: ReMe,
    kind: str,
    target: str,
    candidates: list[MemoryNode],
    chat: ChatClient | None = None,
    similar_k: int = SIMILAR_PER_CANDIDATE,
) -> list[MemoryNode]:
    """Apply the model's decision for every candidate (shown its `similar_k` nearest existing
    memories); the nodes that changed."""
    vectors = await reme.embed_documents([c.embedding_text() for c in candidates])
    existing: dict[str, MemoryNode] = {}
    for vector in vectors:
        for hit in await reme.similar(vector, kind, target, similar_k):
            existing.setdefault(hit.memory_id, hit)
    if not existing:
        decisions: dict[int, Mapping[str, object]] = {}
    else:
        decisions = await _decide(reme, target, candidates, list(existing.values()), chat)
    labels = {f"E{i}": node for i, node in enumerate(existing.values(), start=1)}
    changed: list[MemoryNode] = []
    to_add: list[tuple[MemoryNode, np.ndarray]] = []
    for index, (candidate, vector) in enumerate(zip(candidates, vectors, strict=True)):
        decision = decisions.get(index, {"action": "ADD"})
        action = str(decision.get("action", "ADD")).upper()
        chosen = labels.get(str(decision.get("memory") or "").strip())
        if action == "NONE":
            continue
        if action == "DELETE" and chosen is not None:
            if await reme.delete_memory(chosen.memory_id):
                chosen.action, chosen.score = "delete", 0.0
                changed.append(chosen)
            continue
        if action == "UPDATE" and chosen is not None:
            changed.extend(await _update(reme, chosen, candidate, decision))
            continue
        if action in ("ADD", "UPDATE"):  # an UPDATE of nothing known becomes an ADD
            to_add.append((candidate, vector))
    if to_add:
        stored = await reme.store_nodes([c for c, _ in to_add], np.stack([v for _, v in to_add]))
        for node, created in stored:
            if created:
                node.action = "add"
                changed.append(node)
    return changed


async def _update(
    reme: ReMe, chosen: MemoryNode, candidate: MemoryNode, decision: Mapping[str, object]
) -> list[MemoryNode]:
    content = str(decision.get("content") or "").strip() or candidate.content
    try:
        node = await reme.update_memory(
            chosen.memory_id,
            memory_content=content,
            when_to_use=candidate.when_to_use or None,
            message_time=candidate.message_time or None,
            metadata={"source": candidate.metadata.get("source")},
        )
    except DuplicateContentError:  # the merged text is already another memory: drop this one
        await reme.delete_memory(chosen.memory_id)
        chosen.action, chosen.score = "delete", 0.0
        return [chosen]
    except KeyError:  # deleted meanwhile
        return []
    node.action = "update"
    return [node]


async def _decide(
    reme: ReMe,
    target: str,
    candidates: list[MemoryNode],
    existing: list[MemoryNode],
    chat: ChatClient | None = None,
) -> dict[int, Mapping[str, object]]:
    """Decision per candidate index (missing or unreadable ones default to ADD)."""
    shown_existing = [
        {"id": f"E{i}", "content": n.content, "time": n.message_time or n.time_modified}
        for i, n in enumerate(existing, start=1)
    ]
    shown_candidates = [
        {"id": f"C{i}", "content": c.content, "time": c.message_time}
        for i, c in enumerate(candidates, start=1)
    ]
    user = prompt(
        "decide",
        reme.language,
        target=target,
        existing=as_json_list(shown_existing),
        candidates=as_json_list(shown_candidates),
    )
    chat = chat or reme.chat
    answer = await chat.complete(prompt("system", reme.language), user, what="memory decision")
    items = json_from_answer(answer)
    if isinstance(items, dict):
        items = items.get("decisions") or [items]
    decisions: dict[int, Mapping[str, object]] = {}
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        label = str(item.get("candidate") or "").strip().upper()
        known = label[:1] == "C" and label[1:].isdigit() and 1 <= int(label[1:]) <= len(candidates)
        if known and str(item.get("action", "")).upper() in ACTIONS:
            decisions.setdefault(int(label[1:]) - 1, item)
    if items is None:
        log.warning("unreadable memory decision answer (adding every candidate): %.200s", answer)
    return decisions


def history_node(transcript: Transcript, targets: list[tuple[str, str]], author: str) -> MemoryNode:
    """The conversation itself, kept as a `history` memory of the first target."""
    return MemoryNode(
        memory_type=HISTORY,
        memory_target=targets[0][1],
        content=transcript.text,
        message_time=transcript.last_time or "",
        author=author,
        metadata={"targets": [f"{kind}:{name}" for kind, name in targets]},
    )
