"""The agent's tools: one module per tool, the registry and the approval policy.

Importing this package is cheap; agentscope is only imported by the tool modules.
"""
