"""The assistant's vector memory (`memory.vector.enabled`): each conversation handed to the
summarizer is also summarized into the user's personal memory and into the tool memory of the
tools it called; the agent can `retrieve_memory`, and the `memory_vector_*` operations
(remecli/ops/vector_ops.py) reach the same store. Secrets are redacted by ReMe itself before
anything is stored (`memory.redact_secrets`).

Stored under `<working_dir>/vector/vector_store/` (`Locations.vector_store_dir`; a store an
earlier `remecli memories` kept at `<working_dir>/vector_store/` is moved there), or the
configured store. The Markdown memory stays the
source of truth: a vector summary still running at exit is waited for a few seconds, then
dropped (the same conversation is in the day's topic card and its transcript).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from remecli.config.privacy import private_dirs
from remecli.config.settings import Settings
from remecli.notes.layout import WorkingDir

if TYPE_CHECKING:
    from remecli.llm.conversation_state import ContextMessage
    from remecli.vector import ReMe

log = logging.getLogger(__name__)

CLOSE_WAIT_S = 5.0


def store_config(configured: dict[str, Any], layout: WorkingDir) -> dict[str, Any]:
    """The store settings, the embedded store at its one place (`Locations.vector_store_dir`)."""
    config = dict(configured)
    local = (config.get("backend") or "local") == "local"
    if local and not (config.get("path") or config.get("db_path")):
        config["path"] = str(layout.vector_store_dir)
    return config


def move_old_store(layout: WorkingDir) -> None:
    """Move the store an earlier `remecli memories` kept at `<working_dir>/vector_store/` to the
    one place, unless a store is there already (then the old one is left, with a warning)."""
    old, new = layout.old_vector_store_dir, layout.vector_store_dir
    if not (old / "memories.sqlite3").is_file():
        return
    if (new / "memories.sqlite3").exists():
        log.warning(
            "vector memory: %s holds an older store that is not used (the store is %s); move "
            "its memories with `remecli memories list --json` and `add`, then delete it",
            old,
            new,
        )
        return
    private_dirs(new.parent)
    old.rename(new)
    log.info("vector memory: moved %s to %s", old, new)


class VectorMemory:
    """Personal and tool memory of one working dir, summarized in the background."""

    def __init__(self, settings: Settings, layout: WorkingDir) -> None:
        self.settings = settings
        self.layout = layout
        self._reme: ReMe | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def enabled(self) -> bool:
        """True when `memory.vector.enabled` is set."""
        return self.settings.memory.vector.enabled

    def reme(self) -> ReMe:
        """The vector memory library, configured from the app's LLM and embedding settings."""
        if self._reme is None:
            from remecli.vector import ReMe

            private_dirs(self.layout.vector_dir)
            move_old_store(self.layout)
            llm, embedding = self.settings.llm, self.settings.search.embedding
            backend = "openai" if embedding.backend == "api" else embedding.backend
            self._reme = ReMe(
                working_dir=self.layout.vector_dir,
                default_llm_config={
                    "backend": "openai",
                    "model_name": llm.model_name,
                    "api_key": llm.api_key,
                    "base_url": llm.base_url,
                    "timeout": llm.timeout,
                    "max_retries": llm.max_retries,
                },
                default_embedding_model_config={
                    "backend": "local" if backend == "none" else backend,
                    "model_name": embedding.model_name,
                    "api_key": embedding.api_key,
                    "base_url": embedding.base_url,
                    "dimensions": embedding.dimensions or None,
                },
                default_vector_store_config=store_config(
                    self.settings.memory.vector.store, self.layout
                ),
                language=self.settings.language,
                redact_secrets=self.settings.memory.redact_secrets,  # ReMe redacts what it stores
            )
        return self._reme

    def remember(self, messages: list[ContextMessage]) -> None:
        """Summarize `messages` into personal and tool memory in the background."""
        if not self.enabled or not messages:
            return
        from remecli.vector.integration import remember_conversation

        async def run() -> None:
            try:
                nodes = await remember_conversation(
                    self.reme(), messages, self.settings.memory.vector.user_name
                )
                log.info("vector memory: %d node(s) changed", len(nodes))
            except Exception:  # the Markdown summary is the record; this one is best effort
                log.exception("vector memory summary failed")

        task = asyncio.create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def retrieve(self, query: str, top_k: int = 5) -> list[dict[str, Any]]:
        """Personal, task and tool memories relevant to `query`, best first."""
        result = await self.reme().retrieve(query=query, top_k=top_k)
        return [node.to_dict() for node in result.nodes]

    async def close(self) -> None:
        """Wait a little for running summaries, then stop them; close the store."""
        if self._tasks:
            _done, pending = await asyncio.wait(set(self._tasks), timeout=CLOSE_WAIT_S)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        if self._reme is not None:
            await self._reme.close()
            self._reme = None
