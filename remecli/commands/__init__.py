"""Slash commands: one registry feeding /help, autocomplete and dispatch in every front-end."""

from remecli.commands.registry import COMMANDS, SlashCommand, complete, dispatch, parse

__all__ = ["COMMANDS", "SlashCommand", "complete", "dispatch", "parse"]
