"""The command table: `remecli` alone starts a front-end (`key=value` settings, `-p QUESTION`);
`remecli COMMAND …` runs one of the commands added at the bottom. Only click and the command
tables load here; a front-end or a command imports its implementation when it runs."""

from __future__ import annotations

import click

from remecli import __version__
from remecli.surfaces.cli.base import CommandGroup, unknown_command
from remecli.surfaces.cli.import_cmd import import_conversations
from remecli.surfaces.cli.memory_commands import (
    dream,
    ingest,
    links,
    memory,
    reindex,
    search,
    sessions,
    sync,
)
from remecli.surfaces.cli.studio import studio
from remecli.surfaces.cli.surface_commands import job, mcp, serve
from remecli.surfaces.cli.tokens import access_log, token_group
from remecli.surfaces.cli.vector_commands import memories
from remecli.surfaces.cli.where import init, where

USAGE = """\
usage: remecli [config=NAME[,NAME…]] [key=value …] [-p QUESTION | -p -]
       remecli COMMAND [OPTIONS] [ARGUMENTS] [key=value …]
"""
ABOUT = """\
A terminal assistant with long-term memory kept as Markdown files you own.

  remecli                         open the chat (Textual TUI)
  remecli ui=plain                line-mode REPL for dumb terminals, SSH, screen readers
  remecli -p "question"           answer once, print to stdout, exit (also prompt="…")
  cat q.txt | remecli -p -        the same, the question read from stdin
  remecli resume=last             continue the last conversation (or resume=<id>)
"""
SETTINGS_HELP = """\
Settings: config=a,b merges YAML files in order (a name is looked up in the packaged config
folder, then the current directory; a path works too; `remecli` alone loads the packaged
defaults). Any setting can be overridden as key=value or dotted (llm.model_name=gpt-4o,
tools.approval=never). Precedence: defaults < YAML files in order < environment (.env too) <
key=value.

Environment (a .env in the current folder fills in the first group):
{settings_env}
{other_env}

Options: -h/--help  this text   -V/--version  print the version
Each command explains itself: remecli COMMAND --help
"""
# Environment variables remecli reads besides ENV_VARS (config/loader.py), each where it is read.
OTHER_ENV: tuple[tuple[str, str], ...] = (
    ("REME_SERVE_TOKEN", "bearer token of serve / mcp --http / studio (else serve.token)"),
    ("REMECLI_NO_DAEMON", "set: commands never hand their work to a running `remecli serve`"),
    ("XDG_DATA_HOME", "the memory home is $XDG_DATA_HOME/remecli (else ~/.local/share/remecli)"),
    ("HOME", "the memory home's fallback (~/.local/share/remecli)"),
    ("XDG_CACHE_HOME", "the tokenizer cache folder's parent (else ~/.cache)"),
    (
        "XDG_STATE_HOME",
        "messages put aside when the disk was full: $XDG_STATE_HOME/remecli/rescued "
        "(else ~/.local/state/remecli/rescued)",
    ),
    ("TIKTOKEN_CACHE_DIR", "the tokenizer cache folder itself"),
    ("SHELL", "the shell the bash tool runs (else /bin/bash, /bin/sh)"),
)


def environment_help() -> dict[str, str]:
    """The two groups of environment variables of `--help`, one per line."""
    from remecli.config.loader import ENV_VARS

    width = max(len(name) for name in [*ENV_VARS, *(name for name, _ in OTHER_ENV)])
    settings_env = "".join(f"  {name:<{width}}  {key}\n" for name, key in ENV_VARS.items())
    other_env = "".join(f"  {name:<{width}}  {what}\n" for name, what in OTHER_ENV)
    return {"settings_env": settings_env.rstrip("\n"), "other_env": other_env.rstrip("\n")}


class RemecliGroup(CommandGroup):
    """The commands, or (when the first argument is no command) the front-end with its
    `key=value` settings anywhere among the options."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] in self.commands:
            return super().parse_args(ctx, args)
        ctx.allow_interspersed_args = True  # settings before and after -p
        ctx.allow_extra_args = True
        try:
            rest = click.Command.parse_args(self, ctx, args)
        except click.BadOptionUsage as exc:
            if exc.option_name not in ("-p", "--prompt"):
                raise
            raise click.UsageError(
                '-p needs a question, e.g. remecli config=cli -p "what is in MEMORY.md?" '
                "(or -p - to read it from stdin)",
                ctx,
            ) from None
        for token in rest:
            if token in self.commands:
                raise click.UsageError(f"put the command first: remecli {token} …", ctx)
            if "=" not in token:
                raise unknown_command(token, self.list_commands(ctx), ctx, question=True)
        ctx.params["setting_args"] = list(rest)
        ctx.args = []
        return []

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, command.get_short_help_str(86)) for name, command in self.commands.items()]
        width = max(len(name) for name, _ in rows)
        commands = "".join(f"  {name:<{width}}  {what}\n" for name, what in rows)
        settings_help = SETTINGS_HELP.format(**environment_help())
        formatter.write(f"{USAGE}\n{ABOUT}\nCommands:\n{commands}\n{settings_help}")


@click.group(
    cls=RemecliGroup,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.option(
    "-p", "--prompt", metavar="QUESTION", help="answer once and exit (-p -: read it from stdin)"
)
@click.version_option(__version__, "-V", "--version", message="remecli %(version)s")
@click.pass_context
def remecli(ctx: click.Context, prompt: str | None, setting_args: list[str] | None = None) -> int:
    """remecli: the chat, or one command."""
    from remecli.notes.log_redaction import install_log_redaction

    install_log_redaction()  # what any entry point logs is redacted before it reaches a file
    if ctx.invoked_subcommand is not None:
        return 0
    from remecli.ui.start import chat

    return chat(setting_args or [], prompt)


COMMANDS: tuple[click.Command, ...] = (
    sessions,
    search,
    reindex,
    links,
    memory,
    dream,
    ingest,
    sync,
    memories,
    job,
    mcp,
    serve,
    studio,
    import_conversations,
    where,
    init,
    token_group,
    access_log,
)
for _command in COMMANDS:
    remecli.add_command(_command)
