"""Secrets never reach the vector store: what ReMe stores passes through the notes' redactor
(`[REDACTED:<kind>]` for API keys, tokens, private keys and passwords), like every Markdown note."""

from __future__ import annotations

from collections.abc import Mapping

from remecli.notes.redact import redact_secrets
from remecli.vector.conversation import Transcript
from remecli.vector.node import MemoryNode
from remecli.vector.values import JSON, JSONObject


def redact_text(text: str) -> str:
    """`text` with every secret replaced."""
    return redact_secrets(text).text


def redact_value(value: JSON) -> JSON:
    """A metadata value with the secrets in its texts replaced (lists and dicts walked)."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, list):
        return [redact_value(item) for item in value]
    if isinstance(value, dict):
        return {key: redact_value(item) for key, item in value.items()}
    return value


def redact_metadata(metadata: Mapping[str, JSON]) -> JSONObject:
    """Metadata with the secrets in its texts replaced."""
    return {key: redact_value(value) for key, value in metadata.items()}


def redact_node(node: MemoryNode) -> bool:
    """Redact the node's content, when-to-use and metadata in place; True when anything changed."""
    content, when_to_use = redact_text(node.content), redact_text(node.when_to_use)
    metadata = redact_metadata(node.metadata)
    changed = (content, when_to_use, metadata) != (node.content, node.when_to_use, node.metadata)
    node.content, node.when_to_use, node.metadata = content, when_to_use, metadata
    return changed


def redact_transcript(transcript: Transcript) -> Transcript:
    """The conversation with its secrets replaced (before the model or the store sees it)."""
    return Transcript(redact_text(transcript.text), transcript.last_time, transcript.tools)
