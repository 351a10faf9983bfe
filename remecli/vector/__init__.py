"""Vector-based ReMe: personal (user_name), procedural (task_name) and tool (tool_name) memory
with LLM extraction and ADD / UPDATE / DELETE / NONE decisions, over an embedded store or
pgvector; user profiles; the reference ReMe's API.

    from remecli.vector import ReMe      # or: from remecli import ReMe
"""

from remecli.vector.chat import MemoryModelError
from remecli.vector.config import ReMeConfigError
from remecli.vector.handlers import MemoryHandler
from remecli.vector.integration import remember_conversation
from remecli.vector.node import (
    HISTORY,
    IDENTITY,
    MEMORY_TYPES,
    PERSONAL,
    PROCEDURAL,
    SUMMARY,
    TASK,
    TOOL,
    MemoryNode,
)
from remecli.vector.profiles import ProfileHandler
from remecli.vector.reme import ReMe
from remecli.vector.retriever import RetrievalResult
from remecli.vector.stores import DuplicateContentError, VectorStoreError
from remecli.vector.targets import MemoryNotFoundError

__all__ = [
    "HISTORY",
    "IDENTITY",
    "MEMORY_TYPES",
    "PERSONAL",
    "PROCEDURAL",
    "SUMMARY",
    "TASK",
    "TOOL",
    "DuplicateContentError",
    "MemoryHandler",
    "MemoryModelError",
    "MemoryNode",
    "MemoryNotFoundError",
    "ProfileHandler",
    "ReMe",
    "ReMeConfigError",
    "RetrievalResult",
    "VectorStoreError",
    "remember_conversation",
]
