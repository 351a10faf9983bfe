"""The storage side of ReMe: its configuration, lifecycle and the add / get / update /
delete / list calls. ReMe (reme.py) adds summarize and retrieve.

ReMe: vector-based personal, procedural and tool memory with the seed's API (the reference
ReMe's arguments, defaults and return values; docs/vector.md lists where it differs).

reme = ReMe(working_dir=".reme", default_vector_store_config={"backend": "local"})
await reme.start()
node = await reme.add_memory(memory_content="User prefers concise code", user_name="alice")
answer = await reme.retrieve_memory(query="code style", user_name="alice")   # text
await reme.close()

Whatever is stored (contents, when-to-use, metadata, the kept conversation, profiles) has its
secrets replaced by `[REDACTED:<kind>]` first, unless `redact_secrets=False`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from remecli.search.embedders import Embedder
from remecli.vector.chat import ChatClient
from remecli.vector.config import ReMeConfigError, build_embedder, embedding_settings, llm_settings
from remecli.vector.filters import compile_filters
from remecli.vector.handlers import MemoryHandler
from remecli.vector.logs import VectorLogs
from remecli.vector.node import MemoryNode, memory_type_name, normalize_time, now_text
from remecli.vector.options import resolve
from remecli.vector.redaction import redact_metadata, redact_node, redact_text
from remecli.vector.stores import VectorStore, make_store
from remecli.vector.targets import MemoryNotFoundError, Names, scopes
from remecli.vector.values import (
    JSON,
    ColumnValues,
    ConfigSection,
    Filters,
    FilterValue,
    MetadataIn,
    TimeValue,
)

log = logging.getLogger(__name__)

PROFILE_BACKENDS = ("filesystem",)


class VectorMemoryBase:
    """ReMe's storage side: configuration, lifecycle, add / get / update / delete / list."""

    def __init__(
        self,
        *args: str,
        llm_api_key: str | None = None,
        llm_base_url: str | None = None,
        embedding_api_key: str | None = None,
        embedding_base_url: str | None = None,
        working_dir: str | Path = ".reme",
        config_path: str | Path = "vector",
        enable_logo: bool = True,
        log_to_console: bool = False,
        log_to_file: bool = False,
        default_llm_config: ConfigSection | None = None,
        default_embedding_model_config: ConfigSection | None = None,
        default_vector_store_config: ConfigSection | None = None,
        default_token_counter_config: ConfigSection | None = None,
        target_user_names: Sequence[str] | None = None,
        target_task_names: Sequence[str] | None = None,
        target_tool_names: Sequence[str] | None = None,
        enable_profile: bool = True,
        profile_backend: str = "filesystem",
        profile_store_name: str = "profile",
        profile_collection_name: str | None = None,
        profile_max_capacity: int = 50,
        language: str = "",
        vector_weight: float = 0.7,
        embedder: Embedder | None = None,
        redact_secrets: bool = True,
        **kwargs: object,
    ) -> None:
        options = resolve(
            args,
            config_path=config_path,
            llm=default_llm_config,
            embedding=default_embedding_model_config,
            store=default_vector_store_config,
            token_counter=default_token_counter_config,
            llm_api_key=llm_api_key,
            llm_base_url=llm_base_url,
            embedding_api_key=embedding_api_key,
            embedding_base_url=embedding_base_url,
            target_user_names=target_user_names,
            target_task_names=target_task_names,
            target_tool_names=target_tool_names,
            extra=kwargs,
        )
        if enable_profile and profile_backend not in PROFILE_BACKENDS:
            raise ReMeConfigError(
                f"profile_backend {profile_backend!r} is not supported; use 'filesystem' "
                "(or enable_profile=False)"
            )
        self.working_dir = Path(working_dir).expanduser()
        self.redact_secrets = redact_secrets
        self.language = language
        self.vector_weight = vector_weight
        self.enable_logo = enable_logo  # accepted; nothing is printed (docs/vector.md)
        self.llm_configs = options.llms
        self.chat = ChatClient(llm_settings(options.llms["default"]))
        self._chats: dict[str, ChatClient] = {"default": self.chat}
        self.embedding_settings = embedding_settings(options.embedding)
        self.store_config = options.store
        self.token_counter_config = options.token_counter  # accepted; tokens are not counted
        self.memory_target_type_mapping: dict[str, str] = dict(options.targets)
        self.enable_profile = enable_profile
        self.profile_backend = profile_backend
        self.profile_store_name = profile_store_name
        self.profile_collection_name = profile_collection_name
        self.profile_max_capacity = profile_max_capacity
        self.profile_dir = str(self.working_dir / "profile") if enable_profile else ""
        self.logs = VectorLogs(self.working_dir, to_console=log_to_console, to_file=log_to_file)
        self._embedder = embedder  # else the configured one, made by start()
        self._store: VectorStore | None = None
        self._start_lock = asyncio.Lock()

    # -- lifecycle -----------------------------------------------------------------------
    async def start(self) -> VectorMemoryBase:
        """Open the embedder and the store (idempotent; other methods call it when needed)."""
        async with self._start_lock:
            if self._store is None:
                self.logs.open()
                embedder = self._embedder or build_embedder(self.embedding_settings)
                self._embedder = embedder
                if not embedder.dimensions:  # an API model whose size is not configured
                    await asyncio.to_thread(embedder.embed_query, "dimension probe")
                self._store = await asyncio.to_thread(
                    make_store,
                    self.store_config,
                    self.working_dir,
                    int(embedder.dimensions),
                    str(embedder.model_id),
                )
        return self

    async def close(self) -> None:
        """Close the store and the HTTP clients."""
        if self._store is not None:
            await asyncio.to_thread(self._store.close)
            self._store = None
        for chat in self._chats.values():
            await chat.close()
        self.logs.close()

    async def __aenter__(self) -> VectorMemoryBase:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def store(self) -> VectorStore:
        """The open store (after `start()`)."""
        if self._store is None:
            raise RuntimeError("ReMe is not started: await reme.start() first")
        return self._store

    @property
    def embedder(self) -> Embedder:
        """The embedder (the one given to the constructor, else the configured one after
        `start()`)."""
        if self._embedder is None:
            raise RuntimeError("ReMe is not started: await reme.start() first")
        return self._embedder

    @embedder.setter
    def embedder(self, embedder: Embedder) -> None:
        self._embedder = embedder

    def chat_for(self, llm_config_name: str = "default") -> ChatClient:
        """The chat client of a named LLM config (`default`, or one of the config file's)."""
        if llm_config_name not in self._chats:
            if llm_config_name not in self.llm_configs:
                raise ReMeConfigError(
                    f"no LLM config named {llm_config_name!r}; known: "
                    f"{', '.join(sorted(self.llm_configs))} (add it under llms: in config_path)"
                )
            config = {**self.llm_configs["default"], **self.llm_configs[llm_config_name]}
            self._chats[llm_config_name] = ChatClient(llm_settings(config))
        return self._chats[llm_config_name]

    def _register(self, pairs: list[tuple[str, str]]) -> None:
        for kind, target in pairs:
            self.memory_target_type_mapping.setdefault(target, kind)

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

    # -- add, get, update, delete, list --------------------------------------------------------
    async def add_memory(
        self,
        memory_content: str,
        user_name: str = "",
        task_name: str = "",
        tool_name: str = "",
        when_to_use: str = "",
        message_time: TimeValue = "",
        ref_memory_id: str = "",
        author: str = "",
        score: float = 0.0,
        metadata: MetadataIn | None = None,
        **kwargs: JSON,
    ) -> MemoryNode:
        """Add one memory to one target; other keywords are kept as metadata (as the
        reference). The same content for the same target returns the node already stored."""
        pairs = scopes(user_name, task_name, tool_name)
        if len(pairs) != 1:
            raise ValueError("add_memory needs exactly one of user_name, task_name, tool_name")
        if not memory_content or not memory_content.strip():
            raise ValueError("add_memory needs a non-empty memory_content")
        self._register(pairs)
        node = MemoryNode(
            memory_type=pairs[0][0],
            memory_target=pairs[0][1],
            content=memory_content.strip(),
            when_to_use=when_to_use,
            message_time=normalize_time(message_time) or "",
            ref_memory_id=ref_memory_id,
            author=author,
            score=score,
            metadata={**dict(metadata or {}), **kwargs},
        )
        [(stored, _created)] = await self.store_nodes([node])
        return stored

    async def get_memory(self, memory_id: str, missing_ok: bool = False) -> MemoryNode | None:
        """The memory with this id (its `vector` too); raises MemoryNotFoundError (a KeyError)
        when there is none, as the reference does, or returns None with `missing_ok=True`."""
        await self.start()
        node = await asyncio.to_thread(self.store.get, memory_id)
        if node is None and not missing_ok:
            raise MemoryNotFoundError(memory_id)
        if node is not None:  # the reference hands out the vector with the node
            node.vector = await asyncio.to_thread(self.store.vector_of, memory_id)
        return node

    async def update_memory(
        self,
        memory_id: str,
        user_name: str = "",
        task_name: str = "",
        tool_name: str = "",
        memory_content: str | None = None,
        when_to_use: str | None = None,
        message_time: TimeValue = None,
        ref_memory_id: str | None = None,
        author: str | None = None,
        score: float | None = None,
        metadata: MetadataIn | None = None,
        **kwargs: JSON,
    ) -> MemoryNode:
        """Change content, when_to_use, time, reference, author, score or metadata (other
        keywords and `metadata` are merged into it; a None value removes a key); naming another
        target moves the memory. The id never changes (the reference's changes with the text)."""
        await self.start()
        fields: ColumnValues = {"time_modified": now_text()}
        pairs = scopes(user_name, task_name, tool_name)
        if len(pairs) > 1:
            raise ValueError("update_memory takes at most one of user_name, task_name, tool_name")
        if pairs:
            self._register(pairs)
            fields["memory_type"], fields["memory_target"] = pairs[0]
        for name, value in (("when_to_use", when_to_use), ("author", author)):
            if value is not None:
                fields[name] = self._clean(value)
        merged: dict[str, JSON] = {**dict(metadata or {}), **kwargs}
        if ref_memory_id is not None:
            merged["ref_memory_id"] = ref_memory_id or None
        if score is not None:
            merged["score"] = float(score) or None
        if merged and self.redact_secrets:
            merged = redact_metadata(merged)
        if message_time is not None:
            fields["message_time"] = normalize_time(message_time)
        vector = None
        if memory_content is not None or when_to_use is not None:
            current = await self.get_memory(memory_id)
            assert current is not None
            if memory_content is not None:
                if not memory_content.strip():
                    raise ValueError("memory_content must not be empty")
                fields["content"] = self._clean(memory_content.strip())
            probe = MemoryNode(
                memory_type=current.memory_type,
                memory_target=current.memory_target,
                content=str(fields.get("content", current.content) or ""),
                when_to_use=str(fields.get("when_to_use", current.when_to_use) or ""),
            )
            vector = (await self.embed_documents([probe.embedding_text()]))[0]
        node = await asyncio.to_thread(self.store.update, memory_id, fields, merged or None, vector)
        if node is None:
            raise MemoryNotFoundError(memory_id)
        return node

    def _clean(self, text: str) -> str:
        """`text` as it may be stored (secrets redacted unless `redact_secrets=False`)."""
        return redact_text(text) if self.redact_secrets else text

    async def delete_memory(self, memory_id: str | list[str]) -> int:
        """Delete one id (or a list of ids); how many were deleted."""
        await self.start()
        ids = [memory_id] if isinstance(memory_id, str) else list(dict.fromkeys(memory_id))
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
        user_name: str = "",
        task_name: str = "",
        tool_name: str = "",
        filters: Filters | None = None,
        limit: int | None = None,
        sort_key: str | None = None,
        reverse: bool = True,
        memory_type: str | None = None,
    ) -> list[MemoryNode]:
        """Memories of one target (or all), filtered (`{"field": value}`, `{"field": [lo, hi]}`
        over columns and metadata keys), sorted by any field (missing values last; newest first
        by default), limited. `memory_type="history"` lists the stored conversations."""
        await self.start()
        pairs = scopes(user_name, task_name, tool_name)
        if len(pairs) > 1:
            raise ValueError("list_memory takes at most one of user_name, task_name, tool_name")
        scope: dict[str, FilterValue] = {}
        if pairs:
            scope = {"memory_type": pairs[0][0], "memory_target": pairs[0][1]}
        if memory_type:
            scope["memory_type"] = memory_type_name(memory_type)
        conditions = compile_filters({**(filters or {}), **scope})
        return await asyncio.to_thread(self.store.list_nodes, conditions, sort_key, reverse, limit)

    def get_memory_handler(self, memory_target: str) -> MemoryHandler:
        """The memories of one target (named before, or in target_*_names) as a handler."""
        kind = self.memory_target_type_mapping.get(memory_target)
        if kind is None:
            raise ValueError(
                f"{memory_target!r} is not a known target: name it first (user_name=…, "
                "task_name=…, tool_name=…) or pass target_user_names / _task_ / _tool_ to ReMe()"
            )
        return MemoryHandler(self, memory_target, kind)  # type: ignore[arg-type]  # a ReMe
