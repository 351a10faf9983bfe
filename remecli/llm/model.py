"""Build the agentscope chat model from settings: one place that knows the provider wiring."""

from __future__ import annotations

from typing import TYPE_CHECKING

from remecli.llm.endpoint import Endpoint

if TYPE_CHECKING:
    from agentscope.model import OpenAIChatModel

# Placeholder key for local servers (vLLM, Ollama, LM Studio) that ignore authentication.
_NO_KEY = "not-needed"


def build_chat_model(
    settings: Endpoint, *, context_size: int = 128_000, stream: bool = True
) -> OpenAIChatModel:
    """An `OpenAIChatModel` for any OpenAI-compatible endpoint.

    Retries are owned by `remecli.llm.retry` (exponential backoff), so both agentscope's and
    the openai SDK's own retry loops are switched off here: no stacked retries.
    """
    from agentscope.credential import OpenAICredential
    from agentscope.model import OpenAIChatModel

    return OpenAIChatModel(
        credential=OpenAICredential(
            api_key=settings.api_key or _NO_KEY, base_url=settings.base_url
        ),
        model=settings.model_name,
        parameters=OpenAIChatModel.Parameters(temperature=settings.temperature),
        stream=stream,
        max_retries=0,
        context_size=context_size,
        client_kwargs={"max_retries": 0, "timeout": settings.timeout},
    )
