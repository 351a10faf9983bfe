"""Vector-based ReMe: personal (user_name), task (task_name) and tool (tool_name) memory with
LLM extraction and ADD / UPDATE / DELETE / NONE decisions, over an embedded store or pgvector.

    from remecli.vector import ReMe      # or: from remecli import ReMe
"""

from remecli.vector.chat import MemoryModelError
from remecli.vector.config import ReMeConfigError
from remecli.vector.integration import remember_conversation
from remecli.vector.node import HISTORY, MEMORY_TYPES, PERSONAL, TASK, TOOL, MemoryNode
from remecli.vector.reme import MemoryNotFoundError, ReMe
from remecli.vector.retriever import RetrievalResult
from remecli.vector.stores import DuplicateContentError, VectorStoreError

__all__ = [
    "HISTORY",
    "MEMORY_TYPES",
    "PERSONAL",
    "TASK",
    "TOOL",
    "DuplicateContentError",
    "MemoryModelError",
    "MemoryNode",
    "MemoryNotFoundError",
    "ReMe",
    "ReMeConfigError",
    "RetrievalResult",
    "VectorStoreError",
    "remember_conversation",
]
