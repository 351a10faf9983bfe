"""Surfaces that share the memory with other agents: the MCP server and the HTTP JSON API.

Both are built from the one job registry (`remecli.ops`); neither has a list of its own.
"""
