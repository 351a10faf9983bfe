"""agentscope's ReAct agent, its configuration, middlewares, saved state and reply events."""

from agentscope import event as events
from agentscope.agent import Agent, ContextConfig, InjectionConfig, ReActConfig
from agentscope.event import ReplyEndEvent
from agentscope.middleware import MiddlewareBase
from agentscope.state import AgentState

__all__ = [
    "Agent",
    "AgentState",
    "ContextConfig",
    "InjectionConfig",
    "MiddlewareBase",
    "ReActConfig",
    "ReplyEndEvent",
    "events",
]
