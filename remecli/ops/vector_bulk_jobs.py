"""Vector memory in bulk: memory_vector_import (many memories through each store's bulk path),
memory_vector_export (every memory, in the form import reads back) and memory_vector_reindex
(embed every memory again, e.g. after changing the embedding model, and rebuild the index).

`remecli memories import FILE.jsonl`, `export FILE.jsonl` and `reindex` run them from the shell;
MCP and HTTP serve them like every operation. Secrets are redacted before anything is stored.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from remecli.ops.context import JobContext
from remecli.ops.errors import InvalidParams
from remecli.ops.registry import JobParams, JobResult
from remecli.ops.vector_ops import (
    MAX_CONTENT_CHARS,
    MEMORY_TYPES,
    VectorMemoryNode,
    reme_errors,
    vector_job,
    vector_memory,
)

MAX_IMPORT = 100_000  # memories per call (the CLI sends a larger file in parts)
MAX_EXPORT = 1_000_000


class ImportParams(JobParams):
    memories: list[dict[str, Any]] = Field(
        min_length=1,
        max_length=MAX_IMPORT,
        description=(
            'The memories: {"content": …} each, with user_name / task_name / tool_name (or '
            "memory_type + memory_target, as export writes them) unless named for all below, and "
            "any of when_to_use, message_time, author, score, ref_memory_id, memory_id, "
            "time_created, metadata (other keys join the metadata)"
        ),
    )
    user_name: str | None = Field(None, description="Personal memory of this user, for all")
    task_name: str | None = Field(None, description="Task memory of this task, for all")
    tool_name: str | None = Field(None, description="Tool memory of this tool, for all")
    batch_size: int = Field(256, ge=1, le=10_000, description="Texts per embedding call")


class ImportResult(JobResult):
    count: int = Field(description="Memories in the request")
    added: int = Field(description="Newly stored")
    already_stored: int = Field(description="Their target already had that content")
    memory_ids: list[str] = Field(description="The stored memory of each, in order")


class ExportParams(JobParams):
    user_name: str | None = Field(None, description="Only this user's personal memory")
    task_name: str | None = Field(None, description="Only this task's memory")
    tool_name: str | None = Field(None, description="Only this tool's memory")
    memory_type: MEMORY_TYPES | None = Field(None, description="Only this type (e.g. history)")
    limit: int = Field(MAX_EXPORT, ge=1, le=MAX_EXPORT, description="Most memories to return")


class ExportResult(JobResult):
    count: int
    memories: list[VectorMemoryNode] = Field(description="Oldest first (insertion order)")


class ReindexParams(JobParams):
    batch_size: int = Field(256, ge=1, le=10_000, description="Texts per embedding call")


class ReindexResult(JobResult):
    reembedded: int = Field(description="Memories embedded again")
    embedding_model: str
    dimensions: int


@vector_job("memory_vector_import", params=ImportParams, result=ImportResult, read_only=False)
async def memory_vector_import(ctx: JobContext, params: ImportParams) -> ImportResult:
    """Add many vector memories at once (an import), through the store's bulk path.

    Embedded in batches; PostgreSQL loads them with COPY and builds its HNSW index once after a
    large load. The same content for the same target is stored once. Returns the stored id of
    each memory, in order.
    """
    for position, record in enumerate(params.memories, start=1):
        content = record.get("content") or record.get("memory_content") or ""
        if isinstance(content, str) and len(content) > MAX_CONTENT_CHARS:
            raise InvalidParams(
                f"memory {position}: content is longer than {MAX_CONTENT_CHARS} characters; "
                "split it into smaller memories"
            )
    reme = vector_memory(ctx)
    with reme_errors():
        stored = await reme.import_memories(
            params.memories,
            params.user_name,
            params.task_name,
            params.tool_name,
            batch_size=params.batch_size,
        )
    added = sum(1 for _node, created in stored if created)
    return ImportResult(
        count=len(stored),
        added=added,
        already_stored=len(stored) - added,
        memory_ids=[node.memory_id for node, _created in stored],
    )


@vector_job("memory_vector_export", params=ExportParams, result=ExportResult, read_only=True)
async def memory_vector_export(ctx: JobContext, params: ExportParams) -> ExportResult:
    """Every vector memory (or those of one user, task, tool or type), oldest first, in the
    form memory_vector_import reads back (to move memories to another store or model)."""
    reme = vector_memory(ctx)
    with reme_errors():
        nodes = await reme.list_memory(
            user_name=params.user_name or "",
            task_name=params.task_name or "",
            tool_name=params.tool_name or "",
            memory_type=params.memory_type,
            limit=params.limit,
            sort_key=None,
            reverse=False,
        )
    return ExportResult(count=len(nodes), memories=[VectorMemoryNode.of(n) for n in nodes])


@vector_job("memory_vector_reindex", params=ReindexParams, result=ReindexResult, read_only=False)
async def memory_vector_reindex(ctx: JobContext, params: ReindexParams) -> ReindexResult:
    """Embed every vector memory again with the configured embedding model and rebuild the
    nearest-neighbour index (after changing the model to another of the same dimensions).

    Ids, texts, times and metadata stay. A model with other dimensions cannot reuse the store:
    export, point the store at a new table or folder, and import.
    """
    from remecli.vector import VectorStoreError

    reme = vector_memory(ctx)
    with reme_errors():
        try:
            count = await reme.reembed(batch_size=params.batch_size)
        except VectorStoreError as exc:
            raise VectorStoreError(
                f"{exc}. To move to a model of other dimensions: with the old model configured, "
                "`remecli memories export all.jsonl`; then configure the new model and a new "
                "table / store folder, and `remecli memories import all.jsonl`"
            ) from None
    return ReindexResult(
        reembedded=count,
        embedding_model=str(reme.embedder.model_id),
        dimensions=int(reme.embedder.dimensions),
    )
