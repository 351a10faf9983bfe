"""Build the chat model from settings: the one place that picks the provider implementation.

Every endpoint is OpenAI-compatible today, served by the agentscope adapter
(`remecli.llm.agentscope_model`); callers get a `remecli.llm.chat_model.ChatModel`.
"""

from __future__ import annotations

from remecli.llm.chat_model import ChatModel
from remecli.llm.endpoint import Endpoint


def build_chat_model(
    settings: Endpoint, *, context_size: int = 128_000, stream: bool = True
) -> ChatModel:
    """The chat model for `settings` (every request time-bounded by `settings.timeout`).

    `context_size` is the window the agent loop plans with; `stream` whether answers are
    streamed on the wire. See `remecli.llm.agentscope_model.build_chat_model`.

    Every model of every part (the chat, card summaries, Auto Dream, resources, imports, vector
    memory) is built here, and its every request passes one gate: without a configured model
    (`missing_key_message`) a request raises `ModelNotConfigured` and nothing is sent anywhere
    (the model itself can be built: the agent starts, /search and the other commands work).
    """
    from remecli.llm.agentscope_model import build_chat_model as build_agentscope_model

    return build_agentscope_model(settings, context_size=context_size, stream=stream)
