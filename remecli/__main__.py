"""Entry point: start the chat (settings alone) or run the command table (`remecli.cli`), and
turn the outcome into an exit code:
0 success, 1 a failure, 2 a usage error (one line on stderr), 130 interrupted (Ctrl+C), 141 the
reader of stdout left."""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import TYPE_CHECKING

from remecli.llm.deferred_imports import install as defer_unused_imports

defer_unused_imports()  # the program's choice, before agentscope can be imported (see there)

if TYPE_CHECKING:
    import click

SIGPIPE_EXIT = 141  # 128 + SIGPIPE: what a shell reports for a writer whose reader has gone
SIGINT_EXIT = 130  # 128 + SIGINT: what a shell reports for a command stopped by Ctrl+C


def main(argv: list[str] | None = None) -> int:
    """Run remecli; returns the process exit code. Run as the program (`argv` None), a
    finished one-shot answer (`-p`) or server ends the process here (see `leave_now`): a
    server's teardown of the web stack took ~2.3 s after Ctrl+C (0.25 s without it)."""
    try:
        code = run(sys.argv[1:] if argv is None else argv)
        sys.stdout.flush()  # here, so a closed pipe is caught here and not at interpreter exit
    except BrokenPipeError:  # `remecli search x --json | head -1`: the reader has what it wanted
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the final flush at exit then goes nowhere
        return SIGPIPE_EXIT
    except KeyboardInterrupt:  # Ctrl+C in a command (the chat handles its own): one line
        print("remecli: interrupted", file=sys.stderr)
        return SIGINT_EXIT
    from remecli.surfaces.process_end import PROCESS_END

    if argv is None and PROCESS_END.nothing_left:
        leave_now(code)
    return code


def leave_now(code: int) -> None:
    """End the process with `code` without tearing the interpreter down: at-exit handlers run
    (logs flushed, tool processes left running stopped) and output is flushed, but the ~2,300
    modules an answer loaded are not freed one by one (about 1 CPU-s, a quarter of what an
    answer's start-up imports cost, spent after the answer was printed). Only when no other
    thread runs; otherwise the normal exit waits for it."""
    if threading.active_count() > 1:
        return
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader that left, a closed stream: nothing to keep
            pass
    os._exit(code)


def run(argv: list[str]) -> int:
    """Run `argv`: the chat for settings alone, else the command table; usage errors become
    one line and 2."""
    try:
        if all("=" in arg and not arg.startswith("-") for arg in argv):
            from remecli.ui.start import chat

            return chat(argv, None)  # no command, no option: without click (~30 ms CPU)
        return run_command(argv)
    except RecursionError:  # a file given nested thousands deep (`[[[[…`): the parsers recurse
        import logging

        if logging.getLogger().handlers:  # the log file, once a command set it up
            logging.getLogger(__name__).exception("nested too deeply")
        print("remecli: the input is nested too deeply to read; flatten it", file=sys.stderr)
        return 1


def run_command(argv: list[str]) -> int:
    """Parse `argv` with the command table and run it."""
    import click

    from remecli.cli import remecli
    from remecli.surfaces.cli.base import usage_error_line

    try:
        with remecli.make_context("remecli", list(argv)) as ctx:
            return int(remecli.invoke(ctx) or 0)
    except click.exceptions.NoArgsIsHelpError as asked:  # `remecli memory`: which command?
        print(needs_a_command(asked.ctx), file=sys.stderr)
        return 2
    except click.UsageError as error:
        print(usage_error_line(error), file=sys.stderr)
        return error.exit_code
    except click.exceptions.Exit as done:  # --help, --version
        return done.exit_code
    except click.ClickException as error:
        print(f"remecli: {error.format_message()}", file=sys.stderr)
        return error.exit_code


def needs_a_command(ctx: click.Context | None) -> str:
    """`remecli memory: needs a command: history, restore (see remecli memory --help)`."""
    import click

    path = ctx.command_path if ctx is not None else "remecli"
    command = ctx.command if ctx is not None else None
    if isinstance(command, click.Group) and ctx is not None:
        names = ", ".join(command.list_commands(ctx))
        return f"{path}: needs a command: {names} (see {path} --help)"
    return f"{path}: needs arguments (see {path} --help)"


if __name__ == "__main__":
    sys.exit(main())
