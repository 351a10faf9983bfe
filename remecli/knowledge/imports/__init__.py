"""Conversations of other agents read from their own files: Claude Code transcripts, Codex
rollouts, OpenAI-style message lists. Each parser turns a file into an `ImportedConversation`
whose messages are what the `memory_record` job accepts (standard library only)."""

from remecli.knowledge.imports.detect import FORMATS, detect_format, read_conversation
from remecli.knowledge.imports.messages import ImportedConversation, ImportedMessage

__all__ = [
    "FORMATS",
    "ImportedConversation",
    "ImportedMessage",
    "detect_format",
    "read_conversation",
]
