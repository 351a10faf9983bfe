"""Where agentscope's own logger writes (`remecli.llm.logs`, under the runtime's name)."""

from remecli.llm.logs import route_agentscope_logs

__all__ = ["route_agentscope_logs"]
