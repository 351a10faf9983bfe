"""What a reply cost: its tokens at the configured prices (`llm.price_per_mtok_in/out`)."""

from __future__ import annotations

from collections.abc import Mapping

from remecli.config.settings import LLMSettings


def reply_cost(usage: Mapping[str, int], llm: LLMSettings) -> float | None:
    """The cost of `usage` (input_tokens, output_tokens), or None when no price is set."""
    if llm.price_per_mtok_in is None and llm.price_per_mtok_out is None:
        return None
    spent_in = usage.get("input_tokens", 0) * (llm.price_per_mtok_in or 0.0)
    spent_out = usage.get("output_tokens", 0) * (llm.price_per_mtok_out or 0.0)
    return (spent_in + spent_out) / 1_000_000


def format_cost(cost: float) -> str:
    """`$0.0042`, `$1.23`: enough digits to see a cheap reply."""
    return f"${cost:.4f}" if cost < 1 else f"${cost:.2f}"
