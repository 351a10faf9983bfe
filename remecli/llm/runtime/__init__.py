"""The agent runtime remecli is built on (agentscope 2.0.11), named in one place.

Every other package takes agentscope's types from these modules, each as light as what it
re-exports (the TUI paints before any of them loads): `messages` (messages and content blocks),
`tooling` (tools, toolkits, permissions), `agents` (the ReAct agent, middlewares, state, events).
Where its logger writes is `remecli.llm.logs`. `tests/llm/test_provider_seam.py` keeps
agentscope imports here and in `remecli/llm/agentscope_model.py`.
"""
