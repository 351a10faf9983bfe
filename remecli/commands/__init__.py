"""What a user types: `ChatSession` (submit a line → a slash command or the agent's reply; the
queue; resume and new; one event stream out) and the one registry of slash commands."""

from remecli.commands.registry import COMMANDS, SlashCommand, complete, dispatch

__all__ = ["COMMANDS", "SlashCommand", "complete", "dispatch"]
