"""Entry point: parse argv → load settings → start a front-end or a command. No logic of its own."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from remecli.cli_args import Subcommand


def main(argv: list[str] | None = None) -> int:
    """Run remecli; returns the process exit code."""
    from remecli.cli_args import BY_NAME, USAGE, parse_argv

    argv = sys.argv[1:] if argv is None else argv
    try:
        inv = parse_argv(argv)
    except ValueError as exc:
        print(f"remecli: {exc}", file=sys.stderr)
        return 2
    if inv.command == "help":
        print(USAGE, end="")
        return 0
    if inv.command == "version":
        from remecli import __version__

        print(f"remecli {__version__}")
        return 0
    sub = BY_NAME.get(inv.command)
    if sub is not None:
        return run_subcommand(sub, inv.rest)

    from remecli.config import ConfigError, load_settings

    try:
        settings = load_settings(inv.settings_args)
        if inv.prompt is not None:
            settings = settings.with_changes({"prompt": _question(inv.prompt)})
    except (ConfigError, ValueError) as exc:
        print(f"remecli: {exc}", file=sys.stderr)
        return 2
    from remecli.config.logs import WorkingDirUnusable, check_writable, setup_logging

    try:
        check_writable(settings)
    except WorkingDirUnusable as exc:
        print(f"remecli: {exc}", file=sys.stderr)
        return 2
    log_file = setup_logging(settings)
    if settings.prompt is not None:
        from remecli.ui.plain import run_once

        return run_once(settings, settings.prompt)
    if settings.ui == "plain" or not sys.stdout.isatty():
        from remecli.ui.plain import run_repl

        return run_repl(settings)
    from remecli.ui.tui.app import run_tui

    return run_tui(settings, log_file=log_file)


def run_subcommand(sub: Subcommand, rest: list[str]) -> int:
    """Import the subcommand's runner (only now: `remecli --help` stays light) and run it."""
    import importlib

    module_name, _, function = sub.runner.partition(":")
    runner = getattr(importlib.import_module(module_name), function)
    code = runner(sub.name, rest) if sub.with_name else runner(rest)
    return int(code or 0)


def _question(prompt: str) -> str:
    """`-p -` reads the question from stdin (a pipe or a file, not the terminal)."""
    if prompt != "-":
        return prompt
    if sys.stdin is None or sys.stdin.isatty():
        raise ValueError('-p - reads the question from stdin: pipe it in (echo "…" | remecli -p -)')
    question = sys.stdin.read().strip()
    if not question:
        raise ValueError("-p - got an empty question on stdin")
    return question


if __name__ == "__main__":
    sys.exit(main())
