"""The models an OpenAI-compatible server offers (`GET /v1/models`), for `/model`."""

from __future__ import annotations

from remecli.config.settings import LLMSettings

LIST_TIMEOUT_S = 5.0


async def list_models(llm: LLMSettings) -> list[str]:
    """The server's model ids, sorted; raises `openai.OpenAIError` when it does not answer."""
    import openai  # the SDK loads in ~0.3 s: only when asked

    client = openai.AsyncOpenAI(
        base_url=llm.base_url,
        api_key=llm.api_key or "none",
        timeout=min(LIST_TIMEOUT_S, llm.timeout),
        max_retries=0,
    )
    try:
        page = await client.models.list()
        return sorted({model.id for model in page.data})
    finally:
        await client.close()
