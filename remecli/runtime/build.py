"""`build_runtime(settings, mode)`: the composition root of the memory runtime.

Every part is built here once and wired to the others: the one writer goes to every part that
writes, the summarizer's model to the conversation, dreaming and resource cards, one gate to
every model job; the parts' hooks publish typed events on the runtime's bus.
"""

from __future__ import annotations

from pathlib import Path

from remecli.config.settings import Settings
from remecli.conversation.conversation import Conversation
from remecli.conversation.vector_memory import VectorMemory
from remecli.knowledge.background.records import SummaryOutcome
from remecli.knowledge.background.tasks import SummaryTasks
from remecli.knowledge.dreaming import Dreaming
from remecli.knowledge.resources.cards import ResourceCards
from remecli.knowledge.summary.summarizer import Summarizer
from remecli.llm.chat_model import ChatModel
from remecli.llm.tokens import get_token_counter
from remecli.notes.layout import WorkingDir
from remecli.notes.writer import MemoryWriter
from remecli.runtime.events import DreamDone, EventBus, SummaryDone, SummaryTasksChanged
from remecli.runtime.handover import Handover
from remecli.runtime.modes import Mode
from remecli.runtime.runtime import Runtime
from remecli.runtime.search_parts import SearchParts


def build_runtime(
    settings: Settings,
    mode: Mode,
    *,
    workspace: Path | None = None,
    model: ChatModel | None = None,
    search: bool | None = None,
) -> Runtime:
    """The runtime of `settings.working_dir` for `mode` (not started: see `Runtime.start`).
    `workspace` is where the user works (shown paths are relative to it); `model` replaces
    the configured chat model of summaries; `search` False leaves the index closed (jobs that
    need none: dream, links, resources)."""
    root = str(Path(settings.working_dir).expanduser().resolve())  # relative: to the cwd, once
    settings = mode.settings_for(settings.with_changes({"working_dir": root}))
    layout = WorkingDir(Path(settings.working_dir), workspace)
    counter = get_token_counter(settings.memory.token_encoding)
    writer = MemoryWriter.from_settings(layout.root, settings.memory)
    summarizer = Summarizer(settings, layout, model=model, writer=writer)

    def chat_model() -> ChatModel:
        return summarizer.model

    events = EventBus()
    conversation = Conversation(settings, layout, counter, chat_model, display_root=workspace)
    conversation.on_notice = events.publish
    tasks = SummaryTasks(summarizer, layout.pending_dir)
    tasks.live = mode.live  # a front-end shows outcomes as they come
    conversation.on_space_back = tasks.start_waiting  # summaries too
    dreaming = Dreaming(
        settings,
        layout,
        chat_model,
        on_done=lambda result: events.publish(DreamDone(result)),
        writer=writer,
        gate=tasks.gate,  # one gate: no model job without a model, said once
    )
    _report_memory_tasks(events, tasks, dreaming)
    vector = VectorMemory(settings, layout)
    resources = ResourceCards(layout, settings, chat_model, writer, gate=tasks.gate)
    handover = Handover(settings, layout, conversation, tasks, vector)
    conversation.on_compacted = handover.hand_over
    enabled = mode.search if search is None else search
    return Runtime(
        settings=settings,
        mode=mode,
        layout=layout,
        counter=counter,
        writer=writer,
        summarizer=summarizer,
        conversation=conversation,
        tasks=tasks,
        dreaming=dreaming,
        vector=vector,
        resources=resources,
        search=SearchParts(layout.root, writer, enabled=enabled),
        handover=handover,
        events=events,
    )


def _report_memory_tasks(events: EventBus, tasks: SummaryTasks, dreaming: Dreaming) -> None:
    """Summaries and dreams tell the front-end (through `events`) how many run and how they
    ended; a summary that wrote cards may make a dream due."""

    def running_changed(_running: object = None) -> object:
        """Tell the front-end how many memory tasks run (summaries and a dream)."""
        return events.publish(SummaryTasksChanged(tasks.pending_count + int(dreaming.running)))

    async def summary_done(outcome: SummaryOutcome) -> None:
        delivered = events.publish(SummaryDone(outcome))
        if delivered is not None:
            await delivered
        if outcome.status == "written":
            await dreaming.maybe_start()  # new cards may make a dream due

    tasks.on_done = summary_done
    tasks.on_change = running_changed
    dreaming.on_change = running_changed
