"""What the reference's calls return with `return_dict=True`: the answer and the fields the
reference ReMe sends beside it (`messages` and `tools` are always empty here)."""

from __future__ import annotations

from typing import TypedDict

from remecli.vector.node import MemoryNode


class SummarizeAnswer(TypedDict):
    """`summarize_memory(..., return_dict=True)`."""

    answer: list[MemoryNode]
    success: bool
    messages: list[object]
    tools: list[object]
    errors: list[str]


class RetrieveAnswer(TypedDict):
    """`retrieve_memory(..., return_dict=True)`."""

    answer: str
    success: bool
    messages: list[object]
    tools: list[object]
    retrieved_nodes: list[MemoryNode]
    summary: str | None
    query: str


class ProfileAnswer(TypedDict):
    """`retrieve_profile(..., return_dict=True)`."""

    answer: str
    retrieved_nodes: list[MemoryNode]
