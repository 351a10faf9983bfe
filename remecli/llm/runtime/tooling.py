"""agentscope's tools: the function tool, the toolkit, a tool's streamed chunk, permissions."""

from agentscope.permission import PermissionBehavior, PermissionDecision
from agentscope.tool import FunctionTool, ToolChunk, Toolkit, ToolResponse

__all__ = [
    "FunctionTool",
    "PermissionBehavior",
    "PermissionDecision",
    "ToolChunk",
    "ToolResponse",
    "Toolkit",
]
