"""The click pieces every `remecli` command shares: `key=value` settings among the arguments,
unknown commands named with the known ones, whole numbers with plain messages, one-line errors.

No implementation is imported here: a command imports its module only when it runs.
"""

from __future__ import annotations

import re
from typing import Any

import click

_SETTING = re.compile(r"^[A-Za-z_][\w.]*=")
SETTINGS_EPILOG = (
    "Settings: config=NAME[,NAME…] and key=value anywhere among the arguments, as for remecli "
    "itself (e.g. working_dir=~/notes/.reme)."
)
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def is_setting(token: str) -> bool:
    """`key=value` (a dotted key too); a note path such as `a=b.md` is not a setting."""
    return bool(_SETTING.match(token)) and not token.endswith(".md")


def _takes_value(command: click.Command, ctx: click.Context, token: str) -> click.Option | None:
    """The option `token` names when it takes a value as the next argument (not `--x=v`)."""
    for param in command.get_params(ctx):
        if isinstance(param, click.Option) and token in param.opts + param.secondary_opts:
            return None if param.is_flag or param.count else param
    return None


def split_settings(
    command: click.Command, ctx: click.Context, args: list[str]
) -> tuple[list[str], list[str]]:
    """(the `key=value` settings, every other argument). The value after an option is the
    option's (`--filter a=1`), unless the option's value is optional; after `--` nothing is a
    setting."""
    settings: list[str] = []
    rest: list[str] = []
    items = iter(args)
    for token in items:
        if token == "--":
            rest += [token, *items]
            break
        option = _takes_value(command, ctx, token)
        if option is not None:
            rest.append(token)
            following = next(items, None)
            if following is None:
                break
            optional = isinstance(option.flag_value, str)  # `--flag` alone or `--flag v`
            (settings if optional and is_setting(following) else rest).append(following)
        elif is_setting(token):
            settings.append(token)
        else:
            rest.append(token)
    return settings, rest


class SettingsCommand(click.Command):
    """A command that also takes `key=value` settings anywhere among its arguments; its callback
    gets them as `setting_args` (a list, in order)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("context_settings", CONTEXT)
        kwargs.setdefault("epilog", SETTINGS_EPILOG)
        super().__init__(*args, **kwargs)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        settings, rest = split_settings(self, ctx, args)
        remaining = super().parse_args(ctx, rest)
        ctx.params["setting_args"] = settings
        return remaining

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        return [*super().collect_usage_pieces(ctx), "[key=value]..."]

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        lowercase_usage(self, ctx, formatter)


class CommandGroup(click.Group):
    """A group that names an unknown command and lists the known ones (exit code 2)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("context_settings", CONTEXT)
        super().__init__(*args, **kwargs)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0]
        if self.get_command(ctx, name) is None and is_setting(name):  # `remecli memory x=y`
            known = ", ".join(self.list_commands(ctx))
            raise click.UsageError(f"needs a command before the settings: {known}", ctx)
        if self.get_command(ctx, name) is None and not name.startswith("-"):
            raise unknown_command(name, self.list_commands(ctx), ctx)
        return super().resolve_command(ctx, args)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)  # in the order they were added, not sorted

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        lowercase_usage(self, ctx, formatter)


def unknown_command(
    name: str, known: list[str], ctx: click.Context | None, question: bool = False
) -> click.UsageError:
    """The error for `remecli … NAME` when there is no command NAME. `question`: NAME stands
    where a question could have been meant (`remecli "what is 2+2"`), so `-p` is shown."""
    import difflib
    import shlex

    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    ask = f"; to ask it once: remecli -p {shlex.quote(name)}" if question and not close else ""
    return click.UsageError(
        f"invalid choice: {name!r} is not a command{hint}{ask}; choose from {', '.join(known)}",
        ctx,
    )


def lowercase_usage(
    command: click.Command, ctx: click.Context, formatter: click.HelpFormatter
) -> None:
    """`usage: remecli …` as remecli has always printed it."""
    pieces = command.collect_usage_pieces(ctx)
    formatter.write_usage(ctx.command_path, " ".join(pieces), prefix="usage: ")


class WholeNumber(click.ParamType):  # type: ignore[type-arg]
    """An integer of at least `minimum`; the message names the option (`--depth needs a whole
    number, got 'zero'`)."""

    name = "integer"

    def __init__(
        self,
        minimum: int = 1,
        message: str = "{label} needs a whole number, got {value!r}",
        below: str = "{label} must be at least {minimum}",
    ) -> None:
        self.minimum = minimum
        self.message = message
        self.below = below

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        label = param_label(param)
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise click.UsageError(self.message.format(label=label, value=value), ctx) from None
        if number < self.minimum:
            below = self.below.format(label=label, minimum=self.minimum, value=value)
            raise click.UsageError(below, ctx)
        return number


def param_label(param: click.Parameter | None) -> str:
    """How the user wrote the parameter: `--depth`, or `VERSION` for an argument."""
    if param is None:
        return "the value"
    if isinstance(param, click.Option):
        return max(param.opts, key=len)
    return (param.name or "value").upper()


def usage_error_line(error: click.UsageError) -> str:
    """A usage error in one line, with where to read more: `remecli links: … (remecli links
    --help)`."""
    path = error.ctx.command_path if error.ctx is not None else "remecli"
    message = " ".join(error.format_message().split())  # click lists choices one per line
    return f"{path}: {message.rstrip('.')} (see {path} --help){_setting_hint(error, path)}"


def _setting_hint(error: click.UsageError, path: str) -> str:
    """`remecli --resume` names a setting as an option: say how settings are written."""
    if path != "remecli" or not isinstance(error, click.NoSuchOption):
        return ""
    from remecli.config.settings import Settings

    key = error.option_name.lstrip("-").replace("-", "_")
    if key not in Settings.model_fields:
        return ""
    example = "resume=last (or resume=ID from remecli sessions)" if key == "resume" else f"{key}=…"
    return f"; settings are key=value: remecli {example}"
