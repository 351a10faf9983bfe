"""ReMe: vector-based personal, task and tool memory with the seed's API.

reme = ReMe(working_dir=".reme", default_vector_store_config={"backend": "local"})
await reme.start()
node = await reme.add_memory(memory_content="User prefers concise code", user_name="alice")
result = await reme.retrieve_memory(query="code style", user_name="alice")
await reme.close()

Whatever is stored (contents, when-to-use, metadata, the kept conversation) has its secrets
replaced by `[REDACTED:<kind>]` first, unless `redact_secrets=False`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import numpy as np

from remecli.search.embedders import Embedder
from remecli.vector import retriever, summarizer
from remecli.vector.chat import ChatClient
from remecli.vector.config import build_embedder, embedding_settings, llm_settings
from remecli.vector.conversation import render
from remecli.vector.filters import compile_filters
from remecli.vector.node import PERSONAL, TASK, TOOL, MemoryNode, normalize_time, now_text
from remecli.vector.redaction import redact_node, redact_text, redact_transcript, redact_value
from remecli.vector.retriever import RetrievalResult
from remecli.vector.stores import VectorStore, make_store

Names = str | list[str] | None


class MemoryNotFoundError(KeyError):
    """No memory has this id."""

    def __str__(self) -> str:
        return f"no memory with id {self.args[0]!r}; list ids with list_memory()"


def scopes(user_name: Names, task_name: Names, tool_name: Names) -> list[tuple[str, str]]:
    """(memory_type, target) pairs named by the user_name / task_name / tool_name arguments."""
    pairs = []
    for kind, names in ((PERSONAL, user_name), (TASK, task_name), (TOOL, tool_name)):
        for name in [names] if isinstance(names, str) else list(names or []):
            if not str(name).strip():
                raise ValueError(f"an empty name is not a {kind} memory target")
            pairs.append((kind, str(name)))
    return pairs


class ReMe:
    """Vector memory: summarize, retrieve, add, get, update, delete, list (see module doc)."""

    def __init__(
        self,
        working_dir: str | Path = ".reme",
        default_llm_config: dict[str, Any] | None = None,
        default_embedding_model_config: dict[str, Any] | None = None,
        default_vector_store_config: dict[str, Any] | None = None,
        language: str = "",
        vector_weight: float = 0.7,
        embedder: Embedder | None = None,
        redact_secrets: bool = True,
    ) -> None:
        self.working_dir = Path(working_dir).expanduser()
        self.redact_secrets = redact_secrets
        self.language = language
        self.vector_weight = vector_weight
        self.chat = ChatClient(llm_settings(default_llm_config))
        self.embedding_settings = embedding_settings(default_embedding_model_config)
        self.store_config = dict(default_vector_store_config or {"backend": "local"})
        self.embedder: Any = embedder  # any `remecli.search.Embedder`; else from the config
        self._store: VectorStore | None = None
        self._start_lock = asyncio.Lock()

    # -- lifecycle -----------------------------------------------------------------------
    async def start(self) -> ReMe:
        """Open the embedder and the store (idempotent; other methods call it when needed)."""
        async with self._start_lock:
            if self._store is None:
                self.embedder = self.embedder or build_embedder(self.embedding_settings)
                if not self.embedder.dimensions:  # an API model whose size is not configured
                    await asyncio.to_thread(self.embedder.embed_query, "dimension probe")
                self._store = await asyncio.to_thread(
                    make_store,
                    self.store_config,
                    self.working_dir,
                    int(self.embedder.dimensions),
                    str(self.embedder.model_id),
                )
        return self

    async def close(self) -> None:
        """Close the store and the HTTP clients."""
        if self._store is not None:
            await asyncio.to_thread(self._store.close)
            self._store = None
        await self.chat.close()

    async def __aenter__(self) -> ReMe:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def store(self) -> VectorStore:
        """The open store (after `start()`)."""
        if self._store is None:
            raise RuntimeError("ReMe is not started: await reme.start() first")
        return self._store

    # -- building blocks (used by the summarizer and the retriever) --------------------------
    async def embed_documents(self, texts: list[str]) -> np.ndarray:
        """Vectors of texts, off the event loop."""
        await self.start()
        return await asyncio.to_thread(self.embedder.embed_documents, texts)

    async def similar(
        self, vector: np.ndarray, kind: str, target: str, limit: int
    ) -> list[MemoryNode]:
        """The nodes of one target nearest to `vector`."""
        conditions = compile_filters({"memory_type": kind, "memory_target": target})
        return await asyncio.to_thread(self.store.vector_search, vector, conditions, limit)

    async def store_nodes(
        self, nodes: list[MemoryNode], vectors: np.ndarray | None = None
    ) -> list[tuple[MemoryNode, bool]]:
        """Store nodes (embedding them unless `vectors` is given): (node, newly created).

        The one way nodes enter the store: their secrets are redacted here (a node whose text
        changed is embedded again, so no vector is made from a secret)."""
        if self.redact_secrets and any([redact_node(n) for n in nodes]):
            vectors = None
        if vectors is None:
            vectors = await self.embed_documents([n.embedding_text() for n in nodes])
        return await asyncio.to_thread(self.store.add, nodes, vectors)

    # -- the seed's API --------------------------------------------------------------------
    async def summarize_memory(
        self,
        messages: list[Any],
        user_name: Names = None,
        task_name: Names = None,
        tool_name: Names = None,
        **_: Any,
    ) -> list[MemoryNode]:
        """Store the conversation as a history node and extract memories for each target
        (ADD / UPDATE / DELETE / NONE against similar memories). Returns the changed nodes,
        each with `action` set; small talk changes nothing but the history."""
        targets = scopes(user_name, task_name, tool_name)
        if not targets:
            raise ValueError("summarize_memory needs user_name, task_name or tool_name")
        transcript = render(messages)
        if self.redact_secrets:  # neither the extraction model nor the history node sees them
            transcript = redact_transcript(transcript)
        if not transcript.text.strip():
            return []
        author = self.chat.settings.model_name
        [(history, created)] = await self.store_nodes(
            [summarizer.history_node(transcript, targets, author)]
        )
        changed = []
        if created:
            history.action = "add"
            changed.append(history)
        for kind, target in targets:
            found = await summarizer.extract(self, kind, target, transcript, history.memory_id)
            if found:
                changed += await summarizer.reconcile(self, kind, target, found)
        return changed

    async def retrieve_memory(
        self,
        query: str,
        user_name: Names = None,
        task_name: Names = None,
        tool_name: Names = None,
        top_k: int = 10,
        min_score: float | None = None,
        time_created: list[Any] | None = None,
        message_time: list[Any] | None = None,
        filters: dict[str, Any] | None = None,
        keyword: bool = True,
        summarize: bool = False,
        **_: Any,
    ) -> RetrievalResult:
        """Memories relevant to `query` for the named targets (every personal, task and tool
        memory when none is named), best first with scores; `summarize=True` adds a grounded
        summary from the LLM. `time_created` / `message_time`: [low, high] (None = open)."""
        await self.start()
        extra = dict(filters or {})
        if time_created is not None:
            extra["time_created"] = list(time_created)
        if message_time is not None:
            extra["message_time"] = list(message_time)
        pairs: list[tuple[str, str | None]] = list(scopes(user_name, task_name, tool_name))
        if not pairs:
            pairs = [(PERSONAL, None), (TASK, None), (TOOL, None)]
        vector = await asyncio.to_thread(self.embedder.embed_query, query)
        found: list[MemoryNode] = []
        for kind, target in pairs:
            scope = {"memory_type": kind, **({"memory_target": target} if target else {})}
            conditions = compile_filters({**extra, **scope})
            found += await retriever.search_one(
                self, vector, query, conditions, top_k, keyword, self.vector_weight
            )
        found.sort(key=lambda n: -(n.score or 0.0))
        floor = -np.inf if min_score is None else min_score
        nodes = [n for n in found if (n.score or 0.0) >= floor][:top_k]
        result = RetrievalResult(query, nodes)
        if summarize:
            result.summary = await retriever.grounded_summary(self, query, nodes)
        return result

    async def add_memory(
        self,
        memory_content: str,
        user_name: str | None = None,
        task_name: str | None = None,
        tool_name: str | None = None,
        when_to_use: str = "",
        message_time: Any = None,
        author: str = "",
        metadata: dict[str, Any] | None = None,
        **_: Any,
    ) -> MemoryNode:
        """Add one memory to one target; the same content for the same target returns the
        node already stored."""
        pairs = scopes(user_name, task_name, tool_name)
        if len(pairs) != 1:
            raise ValueError("add_memory needs exactly one of user_name, task_name, tool_name")
        if not memory_content or not memory_content.strip():
            raise ValueError("add_memory needs a non-empty memory_content")
        node = MemoryNode(
            memory_type=pairs[0][0],
            memory_target=pairs[0][1],
            content=memory_content.strip(),
            when_to_use=when_to_use,
            message_time=message_time,
            author=author,
            metadata=dict(metadata or {}),
        )
        [(stored, _created)] = await self.store_nodes([node])
        return stored

    async def get_memory(self, memory_id: str) -> MemoryNode | None:
        """The memory with this id, or None."""
        await self.start()
        return await asyncio.to_thread(self.store.get, memory_id)

    async def update_memory(
        self,
        memory_id: str,
        user_name: str | None = None,
        task_name: str | None = None,
        tool_name: str | None = None,
        memory_content: str | None = None,
        when_to_use: str | None = None,
        message_time: Any = None,
        author: str | None = None,
        metadata: dict[str, Any] | None = None,
        **_: Any,
    ) -> MemoryNode:
        """Change content, when_to_use, time, author or metadata (merged; a None value removes
        a key); naming another target moves the memory. The id never changes."""
        await self.start()
        fields: dict[str, Any] = {"time_modified": now_text()}
        pairs = scopes(user_name, task_name, tool_name)
        if len(pairs) > 1:
            raise ValueError("update_memory takes at most one of user_name, task_name, tool_name")
        if pairs:
            fields["memory_type"], fields["memory_target"] = pairs[0]
        for name, value in (("when_to_use", when_to_use), ("author", author)):
            if value is not None:
                fields[name] = self._clean(value)
        if metadata is not None and self.redact_secrets:
            metadata = redact_value(metadata)
        if message_time is not None:
            fields["message_time"] = normalize_time(message_time)
        vector = None
        if memory_content is not None or when_to_use is not None:
            current = await self.get_memory(memory_id)
            if current is None:
                raise MemoryNotFoundError(memory_id)
            if memory_content is not None:
                if not memory_content.strip():
                    raise ValueError("memory_content must not be empty")
                fields["content"] = self._clean(memory_content.strip())
            probe = MemoryNode(
                memory_type=current.memory_type,
                memory_target=current.memory_target,
                content=fields.get("content", current.content),
                when_to_use=fields.get("when_to_use", current.when_to_use),
            )
            vector = (await self.embed_documents([probe.embedding_text()]))[0]
        node = await asyncio.to_thread(self.store.update, memory_id, fields, metadata, vector)
        if node is None:
            raise MemoryNotFoundError(memory_id)
        return node

    def _clean(self, text: str) -> str:
        """`text` as it may be stored (secrets redacted unless `redact_secrets=False`)."""
        return redact_text(text) if self.redact_secrets else text

    async def delete_memory(self, memory_id: str | list[str]) -> int:
        """Delete one id (or a list of ids); how many were deleted."""
        await self.start()
        ids = [memory_id] if isinstance(memory_id, str) else list(memory_id)
        return await asyncio.to_thread(self.store.delete, ids) if ids else 0

    async def delete_all(
        self, user_name: Names = None, task_name: Names = None, tool_name: Names = None
    ) -> int:
        """Delete every memory (or only those of the named targets); how many were deleted."""
        await self.start()
        pairs = scopes(user_name, task_name, tool_name)
        if not pairs:
            return await asyncio.to_thread(self.store.delete_where, [])
        total = 0
        for kind, target in pairs:
            conditions = compile_filters({"memory_type": kind, "memory_target": target})
            total += await asyncio.to_thread(self.store.delete_where, conditions)
        return total

    async def list_memory(
        self,
        user_name: str | None = None,
        task_name: str | None = None,
        tool_name: str | None = None,
        memory_type: str | None = None,
        filters: dict[str, Any] | None = None,
        limit: int | None = None,
        sort_key: str | None = None,
        reverse: bool = False,
        **_: Any,
    ) -> list[MemoryNode]:
        """Memories of one target (or all), filtered (`{"field": value}`, `{"field": [lo, hi]}`
        over columns and metadata keys), sorted by any field (missing values last), limited.
        `memory_type="history"` with a target lists its stored conversations."""
        await self.start()
        pairs = scopes(user_name, task_name, tool_name)
        if len(pairs) > 1:
            raise ValueError("list_memory takes at most one of user_name, task_name, tool_name")
        scope: dict[str, Any] = {}
        if pairs:
            scope = {"memory_type": pairs[0][0], "memory_target": pairs[0][1]}
        if memory_type:
            scope["memory_type"] = memory_type
        conditions = compile_filters({**(filters or {}), **scope})
        return await asyncio.to_thread(self.store.list_nodes, conditions, sort_key, reverse, limit)
