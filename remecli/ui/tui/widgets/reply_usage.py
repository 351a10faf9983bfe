"""The status line's note of the last reply's tokens (and cost, when prices are configured)."""

from __future__ import annotations

from collections.abc import Mapping

from remecli.llm.pricing import format_cost


def reply_usage_text(usage: Mapping[str, int], cost: float | None) -> str:
    """`reply ↑1,234 ↓56 $0.0004`; "" when the server reported no tokens."""
    tokens_in, tokens_out = usage.get("input_tokens", 0), usage.get("output_tokens", 0)
    if not tokens_in and not tokens_out:
        return ""
    text = f"reply ↑{tokens_in:,} ↓{tokens_out:,}"
    return text + (f" {format_cost(cost)}" if cost is not None else "")
