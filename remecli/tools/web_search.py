"""The `web_search` tool: Tavily search results (title, URL, content), capped in size."""

from __future__ import annotations

from typing import Any

from remecli.llm.message import ToolOutput
from remecli.llm.tool_results import ToolArgumentError, as_int, as_text, error, ok
from remecli.tools.context import ToolContext

REQUEST_TIMEOUT_S = 30.0
_NOTICE_ROOM = 80  # kept free for the "more results cut" line
ENABLE_HINT = "web_search is off: set TAVILY_API_KEY (or tools.tavily_api_key) to enable it."


async def web_search(ctx: ToolContext, query: str, max_results: int | None = None) -> ToolOutput:
    """Search the web and return the top results with title, URL and an excerpt.

    Args:
        query: What to search for, as you would type it into a search engine.
        max_results: How many results to return (1-20).
    """
    settings = ctx.settings
    try:
        query = as_text(query, "query").strip()
        count = settings.web_search_max_results
        if max_results is not None:
            count = as_int(max_results, "max_results", minimum=1, maximum=20)
    except ToolArgumentError as exc:
        return error(str(exc))
    if not query:
        return error("The query is empty: pass the words to search for in `query`.")
    if not settings.tavily_api_key:
        return error(ENABLE_HINT)
    import httpx  # here, not at start: tavily and httpx cost every answer ~0.15 s of imports
    from tavily import AsyncTavilyClient
    from tavily.errors import (
        BadRequestError,
        ForbiddenError,
        InvalidAPIKeyError,
        UsageLimitExceededError,
    )
    from tavily.errors import TimeoutError as TavilyTimeoutError

    client = AsyncTavilyClient(
        api_key=settings.tavily_api_key, api_base_url=settings.tavily_base_url or None
    )
    try:
        response = await client.search(query, max_results=count, timeout=REQUEST_TIMEOUT_S)
    except InvalidAPIKeyError:
        return error("Tavily rejected the API key: check TAVILY_API_KEY (tools.tavily_api_key).")
    except UsageLimitExceededError as exc:
        return error(f"Tavily usage limit reached: {exc}. Try again later.")
    except (BadRequestError, ForbiddenError) as exc:
        return error(f"Tavily refused the search: {exc}")
    except (TavilyTimeoutError, httpx.TimeoutException):
        return error(f"The search timed out after {REQUEST_TIMEOUT_S:g} s. Try again.")
    except httpx.HTTPError as exc:
        return error(f"Could not reach the search service: {exc}. Check the network.")
    finally:
        await client.close()
    results = (response or {}).get("results") or []
    return format_results(query, results, settings.web_search_max_chars)


def format_results(query: str, results: list[dict[str, Any]], max_chars: int) -> ToolOutput:
    """Numbered results, the whole text kept within `max_chars` (excerpts cut first)."""
    if not results:
        return ok(f"No results for {query!r}.", results=0)
    budget = max_chars - _NOTICE_ROOM
    blocks: list[str] = []
    used = 0
    for number, item in enumerate(results, 1):
        title = str(item.get("title") or "(untitled)").strip()
        url = str(item.get("url") or "").strip()
        header = f"{number}. {title}\n   {url}\n   "
        content = " ".join(str(item.get("content") or "").split())
        room = budget - used - len(header) - 2  # 2: the blank line between results
        if room < 20:
            break
        if len(content) > room:
            content = content[: room - 1] + "…"
        blocks.append(header + content)
        used += len(blocks[-1]) + 2
    text = "\n\n".join(blocks)
    if len(blocks) < len(results):
        cut = len(results) - len(blocks)
        text += f"\n\n[{cut} more result(s) cut to stay within {max_chars} characters.]"
    return ok(text[:max_chars], results=len(results), shown=len(blocks))
