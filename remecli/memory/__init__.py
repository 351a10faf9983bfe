"""Memory of remecli: the session of a conversation, compaction, tool-result offload, transcript.

Nothing here imports Textual; agentscope is imported lazily where messages are built or parsed.
"""

from remecli.memory.compactor import CompactionResult, Compactor
from remecli.memory.files import atomic_write_text
from remecli.memory.layout import WorkingDir
from remecli.memory.session import CompactionPlan, Session
from remecli.memory.tool_results import ToolResultStore
from remecli.memory.transcript import Transcript, TranscriptData

__all__ = [
    "CompactionPlan",
    "CompactionResult",
    "Compactor",
    "Session",
    "ToolResultStore",
    "Transcript",
    "TranscriptData",
    "WorkingDir",
    "atomic_write_text",
]
