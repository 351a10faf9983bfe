"""Test doubles for remecli: a scripted fake OpenAI-compatible server.

Import from here (``from tests.fakes import FakeOpenAIServer``); the API is documented in
``tests/fakes/fake_openai.py``. Names load lazily so ``python -m tests.fakes.fake_openai`` runs
cleanly.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .chat_validation import Violation, find_violations
    from .fake_openai import FakeOpenAIServer
    from .http_handler import DEFAULT_MODEL, NO_TURN_LEFT, RecordedRequest
    from .turns import (
        CutStreamTurn,
        ErrorTurn,
        HandlerTurn,
        TextTurn,
        ToolCall,
        ToolCallsTurn,
        turn_from_dict,
    )
    from .wire import fake_embedding

_EXPORTS = {
    "FakeOpenAIServer": "fake_openai",
    "DEFAULT_MODEL": "http_handler",
    "NO_TURN_LEFT": "http_handler",
    "RecordedRequest": "http_handler",
    "Violation": "chat_validation",
    "find_violations": "chat_validation",
    "CutStreamTurn": "turns",
    "ErrorTurn": "turns",
    "HandlerTurn": "turns",
    "TextTurn": "turns",
    "ToolCall": "turns",
    "ToolCallsTurn": "turns",
    "turn_from_dict": "turns",
    "fake_embedding": "wire",
}

__all__ = [
    "DEFAULT_MODEL",
    "NO_TURN_LEFT",
    "CutStreamTurn",
    "ErrorTurn",
    "FakeOpenAIServer",
    "HandlerTurn",
    "RecordedRequest",
    "TextTurn",
    "ToolCall",
    "ToolCallsTurn",
    "Violation",
    "fake_embedding",
    "find_violations",
    "turn_from_dict",
]


def __getattr__(name: str) -> Any:
    """Load an exported name from its submodule on first use."""
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
