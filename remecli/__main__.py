"""Entry point: parse argv → load settings → start a front-end or a command. No logic of its own."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Run remecli; returns the process exit code."""
    from remecli.cli_args import USAGE, parse_argv

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
    if inv.command in ("search", "reindex"):
        from remecli.search.cli import run

        return run(inv.command, inv.rest)

    from remecli.config import ConfigError, load_settings

    try:
        settings = load_settings(inv.settings_args)
        if inv.prompt is not None:
            settings.prompt = _question(inv.prompt)
    except (ConfigError, ValueError) as exc:
        print(f"remecli: {exc}", file=sys.stderr)
        return 2
    if inv.command == "sessions":
        from remecli.ui.sessions_cli import print_sessions

        return print_sessions(settings, as_json=inv.json)
    from remecli.logs import setup_logging

    log_file = setup_logging(settings)
    if settings.prompt is not None:
        from remecli.ui.plain import run_once

        return run_once(settings, settings.prompt)
    if settings.ui == "plain" or not sys.stdout.isatty():
        from remecli.ui.plain import run_repl

        return run_repl(settings)
    from remecli.ui.tui.app import run_tui

    return run_tui(settings, log_file=log_file)


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
