"""Vector memory's operations, the seed's ReMe API for every surface: memory_vector_summarize,
memory_vector_retrieve, memory_vector_add, memory_vector_get, memory_vector_update,
memory_vector_list, memory_vector_delete, memory_vector_delete_all (with `confirm`).

They act on the process's vector memory (`memory.vector.*`: the `ReMe` that the assistant's
conversations are summarized into). With `memory.vector.enabled=false` each one fails with a
`VectorMemoryOff` error that names the setting. ReMe redacts secrets before it stores anything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from remecli.ops.context import JobContext
from remecli.ops.errors import EditConflict, InvalidParams, JobError, NotFound, Unavailable
from remecli.ops.registry import JOBS, JobParams, JobResult, P, R, TypedHandler

if TYPE_CHECKING:
    from remecli.ops.host import MemoryHost
    from remecli.vector import MemoryNode, ReMe

MAX_MESSAGES = 5_000
MAX_MESSAGE_CHARS = 100_000
MAX_CONTENT_CHARS = 20_000
MAX_RESULTS = 100
LIST_MAX = 1_000
MEMORY_TYPES = Literal["identity", "personal", "procedural", "task", "tool", "summary", "history"]

Names = str | list[str] | None
Filters = dict[str, str | int | float | bool | None | list[str | int | float | bool | None]]


class VectorMemoryOff(JobError, status=403, code="vector_memory_off"):
    """The operation needs vector memory and `memory.vector.enabled` is false."""


# -- parameters --------------------------------------------------------------------------------
class VectorMessage(BaseModel):
    """One message of a conversation (OpenAI-style; other keys are ignored)."""

    model_config = ConfigDict(extra="ignore")

    role: Literal["user", "assistant", "system", "tool"]
    content: str = Field(max_length=MAX_MESSAGE_CHARS, description="The message text")
    time_created: str | None = Field(
        None, description="When it was said: YYYY-MM-DD HH:MM:SS or ISO 8601"
    )


class SummarizeParams(JobParams):
    messages: list[VectorMessage] = Field(
        min_length=1, max_length=MAX_MESSAGES, description="The conversation, oldest first"
    )
    user_name: Names = Field(None, description="Personal memory of this user (or these users)")
    task_name: Names = Field(None, description="Task memory of this task (or these tasks)")
    tool_name: Names = Field(None, description="Tool memory of this tool (or these tools)")
    description: str = Field("", max_length=2_000, description="What the conversation is about")

    @model_validator(mode="after")
    def _needs_a_target(self) -> SummarizeParams:
        if not (self.user_name or self.task_name or self.tool_name):
            raise ValueError("name user_name, task_name or tool_name (whose memory this is)")
        return self


class RetrieveParams(JobParams):
    query: str = Field("", max_length=2_000, description="What to look for")
    messages: list[VectorMessage] | None = Field(
        None,  # not default_factory: MCP tool signatures take a field without default as required
        max_length=MAX_MESSAGES,
        description="The conversation so far; its last user messages join the query",
    )
    user_name: Names = Field(None, description="Only this user's personal memory")
    task_name: Names = Field(None, description="Only this task's memory")
    tool_name: Names = Field(None, description="Only this tool's memory")
    top_k: int = Field(10, ge=1, le=MAX_RESULTS, description="Most memories to return")
    min_score: float | None = Field(None, description="Drop memories scoring below this")
    time_created: list[str | None] | None = Field(
        None, min_length=2, max_length=2, description="[low, high] stored between (None = open)"
    )
    message_time: list[str | None] | None = Field(
        None, min_length=2, max_length=2, description="[low, high] said between (None = open)"
    )
    filters: Filters | None = Field(
        None, description='{"field": value} or {"field": [low, high]} over columns and metadata'
    )
    keyword: bool = Field(True, description="Fuse keyword hits with the vector search")
    summarize: bool = Field(False, description="Add a short answer from the model citing them")
    enable_time_filter: bool = Field(
        True, description="A day named in the query (YYYY-MM-DD) narrows to what was said then"
    )


class AddParams(JobParams):
    memory_content: str = Field(
        min_length=1, max_length=MAX_CONTENT_CHARS, description="The memory, one fact or lesson"
    )
    user_name: str | None = Field(None, description="Personal memory of this user")
    task_name: str | None = Field(None, description="Task memory of this task")
    tool_name: str | None = Field(None, description="Tool memory of this tool")
    when_to_use: str = Field("", max_length=2_000, description="When the memory helps")
    message_time: str | None = Field(None, description="When it was said (YYYY-MM-DD …)")
    ref_memory_id: str = Field("", max_length=200, description="A related memory's id")
    author: str = Field("", max_length=200, description="Who wrote it")
    score: float = Field(0.0, description="Its importance")
    metadata: dict[str, Any] | None = Field(None, description="Any JSON keys to keep with it")


class IdParams(JobParams):
    memory_id: str = Field(min_length=1, max_length=200, description="The memory's id")


class UpdateParams(IdParams):
    memory_content: str | None = Field(
        None, min_length=1, max_length=MAX_CONTENT_CHARS, description="New content"
    )
    user_name: str | None = Field(None, description="Move it to this user's personal memory")
    task_name: str | None = Field(None, description="Move it to this task's memory")
    tool_name: str | None = Field(None, description="Move it to this tool's memory")
    when_to_use: str | None = Field(None, max_length=2_000, description="New when-to-use")
    message_time: str | None = Field(None, description="New time it was said")
    ref_memory_id: str | None = Field(None, max_length=200, description="New related memory id")
    author: str | None = Field(None, max_length=200, description="New author")
    score: float | None = Field(None, description="New importance")
    metadata: dict[str, Any] | None = Field(
        None, description="Keys to merge into the metadata (a null value removes the key)"
    )


class ListParams(JobParams):
    user_name: str | None = Field(None, description="Only this user's personal memory")
    task_name: str | None = Field(None, description="Only this task's memory")
    tool_name: str | None = Field(None, description="Only this tool's memory")
    memory_type: MEMORY_TYPES | None = Field(
        None, description="Only this type; history = the stored conversations (task = procedural)"
    )
    filters: Filters | None = Field(
        None, description='{"field": value} or {"field": [low, high]} over columns and metadata'
    )
    limit: int = Field(100, ge=1, le=LIST_MAX, description="Most memories to return")
    sort_key: str = Field("time_created", min_length=1, description="Field to sort by")
    reverse: bool = Field(True, description="Descending (the default: newest first)")


class DeleteParams(JobParams):
    memory_id: str | list[str] = Field(description="An id, or a list of ids")


class DeleteAllParams(JobParams):
    confirm: bool = Field(
        False, description="Must be true: deleting every memory (of the named targets) is final"
    )
    user_name: Names = Field(None, description="Only this user's personal memory")
    task_name: Names = Field(None, description="Only this task's memory")
    tool_name: Names = Field(None, description="Only this tool's memory")


# -- results ------------------------------------------------------------------------------------
class VectorMemoryNode(JobResult):
    """One memory as stored (`score`: a retrieval's similarity; `action`: what summarize did)."""

    memory_id: str
    memory_type: str
    memory_target: str
    content: str
    when_to_use: str
    message_time: str
    ref_memory_id: str = ""
    time_created: str
    time_modified: str
    author: str
    metadata: dict[str, Any]
    score: float = 0.0
    action: Literal["add", "update", "delete"] | None = None

    @classmethod
    def of(cls, node: MemoryNode) -> VectorMemoryNode:
        """The result form of a ReMe `MemoryNode` (without its vector)."""
        data = node.to_dict()
        data.pop("vector", None)
        return cls.model_validate(data)


class SummarizeResult(JobResult):
    changed: list[VectorMemoryNode] = Field(description="Memories added, updated or deleted")


class RetrieveResult(JobResult):
    query: str = Field(description="The text searched for (query and recent user messages)")
    text: str = Field(description="The memories as lines (and the summary), ready to read")
    summary: str | None
    memories: list[VectorMemoryNode]


class MemoryResult(JobResult):
    memory: VectorMemoryNode


class ListResult(JobResult):
    count: int
    memories: list[VectorMemoryNode]


class DeleteResult(JobResult):
    deleted: int


# -- the shared parts ---------------------------------------------------------------------------
def vector_on(memory: MemoryHost) -> bool:
    """True when `memory.vector.enabled`: the vector jobs work (and MCP lists them)."""
    return bool(memory.vector.enabled)


def vector_job(
    name: str, *, params: type[P], result: type[R], read_only: bool
) -> Callable[[TypedHandler[P, R]], TypedHandler[P, R]]:
    """`JOBS.define` for a job that needs vector memory on (`needs=vector_on`)."""
    return JOBS.define(name, params=params, result=result, read_only=read_only, needs=vector_on)


def vector_memory(ctx: JobContext) -> ReMe:
    """The process's vector memory, or VectorMemoryOff saying which setting turns it on."""
    vector = ctx.memory.vector
    if not vector.enabled:
        raise VectorMemoryOff(
            "vector memory is off: set memory.vector.enabled=true (in the config file, or as "
            "a `memory.vector.enabled=true` argument of remecli serve / mcp / job) and restart"
        )
    reme: ReMe = vector.reme()
    return reme


@contextmanager
def reme_errors() -> Iterator[None]:
    """ReMe's errors as job errors (the message already says what to do)."""
    from remecli.search.embedders import EmbeddingError
    from remecli.vector import (
        DuplicateContentError,
        MemoryModelError,
        MemoryNotFoundError,
        ReMeConfigError,
        VectorStoreError,
    )

    try:
        yield
    except MemoryNotFoundError as exc:
        raise NotFound(
            f"no memory with id {exc.args[0]!r}; list ids with `remecli memories list` (the "
            "memory_vector_list operation)"
        ) from None
    except DuplicateContentError as exc:
        raise EditConflict(f"{exc}; update or delete memory {exc.existing_id} instead") from None
    except (VectorStoreError, MemoryModelError, ReMeConfigError, EmbeddingError) as exc:
        raise Unavailable(f"vector memory: {exc}") from None
    except ValueError as exc:
        raise InvalidParams(str(exc)) from None


def as_dicts(messages: list[VectorMessage]) -> list[dict[str, Any]]:
    """Messages as ReMe reads them."""
    return [m.model_dump(exclude_none=True) for m in messages]


def retrieval_query(params: RetrieveParams) -> str:
    """The query followed by the last few user messages (what the conversation is about)."""
    from remecli.vector.retriever import query_from

    return query_from(params.query, as_dicts(params.messages or []))


# -- the operations ------------------------------------------------------------------------------
@vector_job(
    "memory_vector_summarize", params=SummarizeParams, result=SummarizeResult, read_only=False
)
async def memory_vector_summarize(ctx: JobContext, params: SummarizeParams) -> SummarizeResult:
    """Turn a conversation into vector memories of the named user, task or tool.

    Keeps the conversation as a history memory, lets the model extract facts and lessons, and
    adds, updates or deletes memories so stale ones do not pile up. Returns what changed.
    """
    reme = vector_memory(ctx)
    with reme_errors():
        nodes = await reme.summarize_memory(
            as_dicts(params.messages),
            user_name=params.user_name,
            task_name=params.task_name,
            tool_name=params.tool_name,
            description=params.description,
            raise_exception=True,
        )
    assert isinstance(nodes, list)
    return SummarizeResult(changed=[VectorMemoryNode.of(n) for n in nodes])


@vector_job("memory_vector_retrieve", params=RetrieveParams, result=RetrieveResult, read_only=True)
async def memory_vector_retrieve(ctx: JobContext, params: RetrieveParams) -> RetrieveResult:
    """Find vector memories relevant to a query (and the conversation so far), best first.

    Personal, task and tool memory (all of them unless a user, task or tool is named); vector
    search fused with keywords. `summarize` adds a short answer that cites the memories.
    """
    reme = vector_memory(ctx)
    query = retrieval_query(params)
    if not query:
        raise InvalidParams("give a query, or messages with a user message to search for")
    with reme_errors():
        found = await reme.retrieve(
            query,
            user_name=params.user_name,
            task_name=params.task_name,
            tool_name=params.tool_name,
            top_k=params.top_k,
            min_score=params.min_score,
            time_created=params.time_created,
            message_time=params.message_time,
            filters=dict(params.filters or {}),
            keyword=params.keyword,
            summarize=params.summarize,
            enable_time_filter=params.enable_time_filter,
        )
    return RetrieveResult(
        query=query,
        text=str(found),
        summary=found.summary,
        memories=[VectorMemoryNode.of(n) for n in found.nodes],
    )


@vector_job("memory_vector_add", params=AddParams, result=MemoryResult, read_only=False)
async def memory_vector_add(ctx: JobContext, params: AddParams) -> MemoryResult:
    """Add one vector memory to one user, task or tool (the same text twice is stored once)."""
    reme = vector_memory(ctx)
    with reme_errors():
        node = await reme.add_memory(**params.model_dump())
    return MemoryResult(memory=VectorMemoryNode.of(node))


@vector_job("memory_vector_get", params=IdParams, result=MemoryResult, read_only=True)
async def memory_vector_get(ctx: JobContext, params: IdParams) -> MemoryResult:
    """Read one vector memory by its id."""
    reme = vector_memory(ctx)
    with reme_errors():
        node = await reme.get_memory(params.memory_id)
    assert node is not None
    return MemoryResult(memory=VectorMemoryNode.of(node))


@vector_job("memory_vector_update", params=UpdateParams, result=MemoryResult, read_only=False)
async def memory_vector_update(ctx: JobContext, params: UpdateParams) -> MemoryResult:
    """Change a vector memory's content, when-to-use, time, author or metadata; naming another
    user, task or tool moves it there. The id never changes."""
    reme = vector_memory(ctx)
    with reme_errors():
        node = await reme.update_memory(**params.model_dump())
    return MemoryResult(memory=VectorMemoryNode.of(node))


@vector_job("memory_vector_list", params=ListParams, result=ListResult, read_only=True)
async def memory_vector_list(ctx: JobContext, params: ListParams) -> ListResult:
    """List vector memories, newest first: filter by user, task or tool, type, any field or
    metadata key; sort by any field."""
    reme = vector_memory(ctx)
    with reme_errors():
        nodes = await reme.list_memory(**params.model_dump())
    return ListResult(count=len(nodes), memories=[VectorMemoryNode.of(n) for n in nodes])


@vector_job("memory_vector_delete", params=DeleteParams, result=DeleteResult, read_only=False)
async def memory_vector_delete(ctx: JobContext, params: DeleteParams) -> DeleteResult:
    """Delete vector memories by id (one id or a list); how many were deleted."""
    reme = vector_memory(ctx)
    with reme_errors():
        deleted = await reme.delete_memory(params.memory_id)
    return DeleteResult(deleted=deleted)


@vector_job(
    "memory_vector_delete_all", params=DeleteAllParams, result=DeleteResult, read_only=False
)
async def memory_vector_delete_all(ctx: JobContext, params: DeleteAllParams) -> DeleteResult:
    """Delete every vector memory, or every memory of the named users, tasks or tools.

    Refused unless `confirm` is true; how many were deleted.
    """
    if not params.confirm:
        raise InvalidParams(
            "memory_vector_delete_all deletes memories for good: pass confirm=true to go on"
        )
    reme = vector_memory(ctx)
    with reme_errors():
        deleted = await reme.delete_all(params.user_name, params.task_name, params.tool_name)
    return DeleteResult(deleted=deleted)
