"""`Handover`: what a conversation hands to long-term memory, and when.

The messages a compaction folds away, the context's unsaved turns at every way out, and what a
crashed run never saved all go to the background summarizer (recorded on disk before it runs),
each message once (the saved mark), and to vector memory when it is on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from remecli.config.settings import Settings
from remecli.conversation.conversation import Conversation
from remecli.conversation.recovery import SAVED_MARK, unsaved_of_crashed_run
from remecli.conversation.vector_memory import VectorMemory
from remecli.knowledge.background.tasks import SummaryTasks
from remecli.knowledge.memory_md.remember import one_shot_worth_a_card
from remecli.notes.layout import WorkingDir

if TYPE_CHECKING:
    from remecli.llm.conversation_state import ContextMessage


class Handover:
    """Hands a conversation's messages to the summarizer (and vector memory)."""

    def __init__(
        self,
        settings: Settings,
        layout: WorkingDir,
        conversation: Conversation,
        tasks: SummaryTasks,
        vector: VectorMemory,
    ) -> None:
        self.settings = settings  # replaced by the runtime's `update_params`
        self.layout = layout
        self.conversation = conversation
        self.tasks = tasks
        self.vector = vector

    def hand_over(self, messages: list[ContextMessage]) -> int:
        """Summarize the messages leaving the context not handed over yet; how many were."""
        fresh = [m for m in messages if not m.metadata.get(SAVED_MARK)]
        self.summarize(fresh, self.conversation.session_id if self.conversation.bound else None)
        return len(fresh)

    def hand_over_unsaved(self) -> int:
        """Hand the context's unsaved messages to the summarizer (marked: never twice); how many."""
        if not self.conversation.bound:
            return 0
        unsaved = [m for m in self.conversation.state.context if not m.metadata.get(SAVED_MARK)]
        for msg in unsaved:
            msg.metadata[SAVED_MARK] = True
        if self.conversation.session.one_shot and not one_shot_worth_a_card(unsaved):
            return 0  # a plain -p question: its transcript is kept, no card, no model call
        self.summarize([m.model_copy(deep=True) for m in unsaved], self.conversation.session_id)
        return len(unsaved)

    def summarize(self, messages: list[ContextMessage], session_id: str | None) -> None:
        """Hand messages to the background summarizer (recorded on disk before it runs): into
        the topic card of `session_id`'s conversation."""
        if messages and self.settings.memory.summarize:
            self.tasks.add(list(messages), session_id=session_id)
            self.vector.remember(list(messages))

    async def recover_unsaved(self) -> int:
        """Summarize what a crashed run never saved (see `recovery`); returns how many."""
        wanted = self.settings.memory.summarize
        found = await unsaved_of_crashed_run(self.layout) if wanted else None  # (session, msgs)
        if found is not None:
            self.summarize(found[1], found[0])
        return 0 if found is None else len(found[1])
