"""Parse a `remecli …` command line with the real CLI without running it (documentation tests:
every command a document shows must exist and take the options it shows)."""

from __future__ import annotations

import shlex

import click

from remecli.cli import remecli


def parse_command_line(line: str) -> click.Context:
    """The context of the innermost command `line` names; raises click.UsageError (or
    click.BadParameter …) when the real CLI would refuse it."""
    words = shlex.split(line)
    assert words and words[0] == "remecli", f"not a remecli command: {line!r}"
    command: click.Command = remecli
    ctx = command.make_context("remecli", words[1:])
    while isinstance(command, click.Group):
        rest = [*getattr(ctx, "_protected_args", []), *ctx.args]
        if not rest:
            break
        name, found, args = command.resolve_command(ctx, rest)
        assert found is not None and name is not None, f"no command in {line!r}"
        command = found
        ctx = command.make_context(name, args, parent=ctx)
    return ctx
