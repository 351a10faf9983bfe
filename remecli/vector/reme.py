"""ReMe: vector-based personal, procedural and tool memory with the seed's API — the reference
ReMe's arguments, defaults and return values (docs/vector.md lists where it differs).

    reme = ReMe(working_dir=".reme", default_vector_store_config={"backend": "local"})
    await reme.start()
    nodes = await reme.summarize_memory(messages=[...], user_name="alice")   # the memories made
    answer = await reme.retrieve_memory(query="code style", user_name="alice")   # text
    await reme.close()

Storage, configuration and add / get / update / delete / list live in `base.py`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from remecli.vector import bulk, retriever, summarizer
from remecli.vector.answers import ProfileAnswer, RetrieveAnswer, SummarizeAnswer
from remecli.vector.base import VectorMemoryBase
from remecli.vector.chat import ChatClient, MemoryModelError
from remecli.vector.conversation import Transcript, render
from remecli.vector.filters import compile_filters
from remecli.vector.node import PERSONAL, PROCEDURAL, TOOL, MemoryNode
from remecli.vector.profiles import ProfileHandler, ProfileRow
from remecli.vector.redaction import redact_transcript
from remecli.vector.retriever import RetrievalResult
from remecli.vector.stores import DEFAULT_COLLECTION, VectorStoreError
from remecli.vector.targets import (
    MemoryNotFoundError,
    Names,
    check_version,
    no_extra_keywords,
    scopes,
)
from remecli.vector.values import JSON, Filters, FilterValue, Scalar

log = logging.getLogger(__name__)

DEFAULT_TOP_K = 10
__all__ = ["MemoryNotFoundError", "ReMe"]


class ReMe(VectorMemoryBase):
    """Vector memory: summarize, retrieve, add, get, update, delete, list; user profiles."""

    async def start(self) -> ReMe:  # noqa: D102 - the base's, typed for this class
        await super().start()
        return self

    async def __aenter__(self) -> ReMe:
        return await self.start()

    def _targets(
        self, user_name: Names, task_name: Names, tool_name: Names
    ) -> list[tuple[str, str]]:
        """The named targets, else the ones declared up front (`target_*_names`)."""
        pairs = scopes(user_name, task_name, tool_name)
        if not pairs:
            pairs = [(kind, name) for name, kind in self.memory_target_type_mapping.items()]
        self._register(pairs)
        return pairs

    # -- summarize -------------------------------------------------------------------------
    async def summarize_memory(
        self,
        messages: Sequence[object],
        description: str = "",
        user_name: Names = "",
        task_name: Names = "",
        tool_name: Names = "",
        enable_thinking_params: bool = True,
        version: str = "default",
        retrieve_top_k: int | None = None,
        return_dict: bool = False,
        llm_config_name: str = "default",
        raise_exception: bool = False,
        **kwargs: object,
    ) -> list[MemoryNode] | SummarizeAnswer:
        """Keep the conversation as a history memory and extract memories for each target
        (ADD / UPDATE / DELETE / NONE against its `retrieve_top_k` most similar memories; 5 by
        default). Returns the changed nodes, each with `action` set, as the reference returns
        its memory nodes; `return_dict=True` gives {"answer": nodes, "success", "messages",
        "tools", "errors"}. With `raise_exception=False` a target whose model call fails is
        skipped (logged, `success` false) unless every target failed."""
        no_extra_keywords("summarize_memory", kwargs)
        check_version(version)
        targets = self._targets(user_name, task_name, tool_name)
        if not targets:
            raise ValueError("summarize_memory needs user_name, task_name or tool_name")
        chat = self.chat_for(llm_config_name)
        transcript = render(messages)
        if self.redact_secrets:  # neither the extraction model nor the history node sees them
            transcript = redact_transcript(transcript)
        changed: list[MemoryNode] = []
        errors: list[str] = []
        if transcript.text.strip():
            [(history, created)] = await self.store_nodes(
                [summarizer.history_node(transcript, targets, chat.settings.model_name)]
            )
            if created:
                history.action = "add"
                changed.append(history)
            for kind, target in targets:
                try:
                    changed += await self._summarize_one(
                        kind,
                        target,
                        transcript,
                        history.memory_id,
                        chat,
                        description,
                        retrieve_top_k or summarizer.SIMILAR_PER_CANDIDATE,
                    )
                except (MemoryModelError, VectorStoreError) as exc:
                    if raise_exception or len(targets) == 1:
                        raise
                    log.warning("summarize_memory: %s memory of %s failed: %s", kind, target, exc)
                    errors.append(f"{kind}:{target}: {exc}")
            if errors and len(errors) == len(targets):
                raise MemoryModelError("; ".join(errors))
        if not return_dict:
            return changed
        return {
            "answer": changed,
            "success": not errors,
            "messages": [],
            "tools": [],
            "errors": errors,
        }

    async def _summarize_one(
        self,
        kind: str,
        target: str,
        transcript: Transcript,
        history_id: str,
        chat: ChatClient,
        description: str,
        similar_k: int,
    ) -> list[MemoryNode]:
        profiles: list[ProfileRow] | None = [] if kind == PERSONAL else None
        found = await summarizer.extract(
            self, kind, target, transcript, history_id, chat, description, profiles
        )
        changed = (
            await summarizer.reconcile(self, kind, target, found, chat, similar_k) if found else []
        )
        handler = self.get_profile_handler(target) if kind == PERSONAL else None
        if handler is not None and profiles:
            await handler.aadd_batch(profiles, ref_memory_id=history_id)
        return changed

    # -- retrieve --------------------------------------------------------------------------
    async def retrieve(
        self,
        query: str = "",
        user_name: Names = None,
        task_name: Names = None,
        tool_name: Names = None,
        top_k: int = DEFAULT_TOP_K,
        min_score: float | None = None,
        time_created: Sequence[Scalar] | None = None,
        message_time: Sequence[Scalar] | None = None,
        filters: Filters | None = None,
        keyword: bool = True,
        summarize: bool = False,
        messages: Sequence[object] | None = None,
        description: str = "",
        enable_time_filter: bool = False,
        llm_config_name: str = "default",
    ) -> RetrievalResult:
        """Memories relevant to `query` (and the last user `messages`) for the named targets
        (every personal, procedural and tool memory when none is named), best first with scores;
        `summarize=True` adds a grounded summary. `time_created` / `message_time`: [low, high]
        (None = open); `enable_time_filter`: a day named in the query (YYYY-MM-DD) narrows to
        memories said that day, when there are any."""
        text = retriever.query_from(query, messages)
        if not text:
            raise ValueError("retrieve_memory needs a query, or messages with a user message")
        await self.start()
        extra: dict[str, FilterValue] = dict(filters or {})
        if time_created is not None:
            extra["time_created"] = list(time_created)
        if message_time is not None:
            extra["message_time"] = list(message_time)
        pairs: list[tuple[str, str | None]] = list(scopes(user_name, task_name, tool_name))
        self._register([(k, t) for k, t in pairs if t])
        if not pairs:
            pairs = [(PERSONAL, None), (PROCEDURAL, None), (TOOL, None)]
        vector = await asyncio.to_thread(self.embedder.embed_query, text)
        days = retriever.days_named(text) if enable_time_filter and message_time is None else None
        nodes: list[MemoryNode] = []
        if days:
            nodes = await self._search(
                vector, text, pairs, {**extra, "message_time": days}, top_k, keyword
            )
        if not nodes:
            nodes = await self._search(vector, text, pairs, extra, top_k, keyword)
        floor = -np.inf if min_score is None else min_score
        result = RetrievalResult(text, [n for n in nodes if n.score >= floor][:top_k])
        if summarize:
            result.summary = await retriever.grounded_summary(
                self, text, result.nodes, self.chat_for(llm_config_name), description
            )
        return result

    async def _search(
        self,
        vector: np.ndarray,
        text: str,
        pairs: list[tuple[str, str | None]],
        extra: Filters,
        top_k: int,
        keyword: bool,
    ) -> list[MemoryNode]:
        found: list[MemoryNode] = []
        for kind, target in pairs:
            scope = {"memory_type": kind, **({"memory_target": target} if target else {})}
            conditions = compile_filters({**extra, **scope})
            found += await retriever.search_one(
                self, vector, text, conditions, top_k, keyword, self.vector_weight
            )
        found.sort(key=lambda n: -n.score)
        return found

    async def retrieve_memory(
        self,
        query: str = "",
        description: str = "",
        messages: Sequence[object] | None = None,
        user_name: Names = "",
        task_name: Names = "",
        tool_name: Names = "",
        enable_thinking_params: bool = True,
        version: str = "default",
        retrieve_top_k: int | None = None,
        enable_time_filter: bool = True,
        return_dict: bool = False,
        llm_config_name: str = "default",
        raise_exception: bool = False,
        top_k: int | None = None,
        summarize: bool = False,
        min_score: float | None = None,
        time_created: Sequence[Scalar] | None = None,
        message_time: Sequence[Scalar] | None = None,
        filters: Filters | None = None,
        keyword: bool = True,
        **kwargs: object,
    ) -> str | RetrieveAnswer:
        """The reference's call: the relevant memories as text (the grounded summary first
        with `summarize=True`; a named user's profile rows after), or with `return_dict=True`
        {"answer", "success", "messages", "tools", "retrieved_nodes", "summary"}. At most
        `retrieve_top_k` (or `top_k`; 10 by default) memories. Also takes `retrieve()`'s
        `min_score`, `time_created`, `message_time`, `filters` and `keyword`."""
        no_extra_keywords("retrieve_memory", kwargs)
        check_version(version)
        result = await self.retrieve(
            query,
            user_name or None,
            task_name or None,
            tool_name or None,
            top_k=top_k or retrieve_top_k or DEFAULT_TOP_K,
            messages=messages,
            description=description,
            enable_time_filter=enable_time_filter,
            llm_config_name=llm_config_name,
            summarize=False,
            min_score=min_score,
            time_created=time_created,
            message_time=message_time,
            filters=filters,
            keyword=keyword,
        )
        success = True
        if summarize:
            try:
                result.summary = await retriever.grounded_summary(
                    self, result.query, result.nodes, self.chat_for(llm_config_name), description
                )
            except MemoryModelError as exc:
                if raise_exception:
                    raise
                log.warning("retrieve_memory: the summary failed: %s", exc)
                success = False
        answer = str(result)
        for _kind, name in scopes(user_name, None, None):
            handler = self.get_profile_handler(name)
            rows = await handler.aread_all() if handler is not None else ""
            if rows:
                answer += f"\n\nProfile of {name}:\n{rows}"
        if not return_dict:
            return answer
        return {
            "answer": answer,
            "success": success,
            "messages": [],
            "tools": [],
            "retrieved_nodes": result.nodes,
            "summary": result.summary,
            "query": result.query,
        }

    # -- many at once ------------------------------------------------------------------------
    async def add_memories(
        self,
        memories: Sequence[Mapping[str, JSON] | MemoryNode],
        user_name: Names = "",
        task_name: Names = "",
        tool_name: Names = "",
        batch_size: int = bulk.EMBED_BATCH,
    ) -> list[MemoryNode]:
        """Add many memories in one go (an import): each a dict with `content` (or
        `memory_content`), whose memory it is (`user_name` / `task_name` / `tool_name`, or
        `memory_type` + `memory_target` as `list_memory` gives them; else the target named here)
        and any field of `add_memory` (`memory_id` and `time_created` are kept when given);
        other keys become metadata. Embedded `batch_size` texts at a time and written through
        the store's bulk path. Returns the stored node of each, in order (the node already
        stored when a target has that content)."""
        stored = await self.import_memories(memories, user_name, task_name, tool_name, batch_size)
        return [node for node, _created in stored]

    async def import_memories(
        self,
        memories: Sequence[Mapping[str, JSON] | MemoryNode],
        user_name: Names = "",
        task_name: Names = "",
        tool_name: Names = "",
        batch_size: int = bulk.EMBED_BATCH,
    ) -> list[tuple[MemoryNode, bool]]:
        """`add_memories`, telling for each whether it was newly stored."""
        nodes = bulk.build_nodes(memories, user_name, task_name, tool_name)
        self._register([(n.memory_type, n.memory_target) for n in nodes])
        return await bulk.add_memories(self, nodes, embed_batch=max(1, int(batch_size)))

    async def reembed(self, batch_size: int = bulk.EMBED_BATCH) -> int:
        """Embed every stored memory again with the current embedding model (same dimensions;
        ids, texts and times stay) and rebuild the ANN index; how many were re-embedded."""
        return await bulk.reembed(self, embed_batch=max(1, int(batch_size)))

    # -- profiles --------------------------------------------------------------------------
    @property
    def profile_path(self) -> Path | None:
        """The folder of the profile files (None when profiles are off)."""
        if not self.enable_profile:
            return None
        collection = self.profile_collection_name or self.store_config.get(
            "collection_name", DEFAULT_COLLECTION
        )
        return Path(self.profile_dir) / str(collection)

    def get_profile_handler(self, user_name: str) -> ProfileHandler | None:
        """The profile of one user (None when profiles are off)."""
        path = self.profile_path
        if path is None:
            return None
        return ProfileHandler(user_name, path, self.profile_max_capacity, self.redact_secrets)

    async def retrieve_profile(
        self, query: str | list[str], user_name: str, top_k: int = 5, return_dict: bool = False
    ) -> str | ProfileAnswer:
        """A user's profile rows that match `query`, as lines (or {"answer",
        "retrieved_nodes"}); raises RuntimeError when profiles are off, as the reference."""
        handler = self.get_profile_handler(user_name)
        if handler is None:
            raise RuntimeError("Profile functionality is disabled.")
        nodes, text = await handler.aretrieve(
            query, limit=top_k, add_profile_id=True, add_history_id=True
        )
        answer = text or "No matching profiles found."
        return {"answer": answer, "retrieved_nodes": nodes} if return_dict else answer
