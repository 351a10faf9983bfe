"""agentscope's messages and content blocks (what a conversation and a tool result are made of)."""

from agentscope.message import (
    AssistantMsg,
    Base64Source,
    DataBlock,
    Msg,
    SystemMsg,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolResultState,
    UserMsg,
)

__all__ = [
    "AssistantMsg",
    "Base64Source",
    "DataBlock",
    "Msg",
    "SystemMsg",
    "TextBlock",
    "ToolCallBlock",
    "ToolResultBlock",
    "ToolResultState",
    "UserMsg",
]
