"""`remecli import PATH`: record conversations of other agents (Claude Code, Codex, OpenAI
messages) into memory. Only the declaration lives here; the work is in `importing`."""

from __future__ import annotations

from pathlib import Path

import click

from remecli.surfaces.cli.base import SettingsCommand

FORMAT_NAMES = ("claude-code", "codex", "openai")


@click.command("import", cls=SettingsCommand)
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--format",
    "format_name",
    type=click.Choice(FORMAT_NAMES),
    help="the file's format (default: detected from its contents)",
)
@click.option(
    "--session-id",
    metavar="ID",
    help="record as this session (default: claude-<id>, codex-<id>, openai-<file name>)",
)
@click.option("--json", "as_json", is_flag=True, help="print what was recorded as JSON")
def import_conversations(
    path: Path,
    format_name: str | None,
    session_id: str | None,
    as_json: bool,
    setting_args: list[str],
) -> int:
    """Record conversations from Claude Code, Codex or an OpenAI-messages JSON file.

    Messages already recorded are skipped, so importing a file again adds only what is new.
    A folder imports every transcript under it.

    \b
    remecli import ~/.claude/projects/-home-me-shop/5f1c2d3e-….jsonl
    remecli import ~/.codex/sessions
    remecli import chat.json --format openai --session-id support-42
    """
    from remecli.surfaces.cli.importing import run_import
    from remecli.surfaces.cli.start import settings_or_exit_code

    path = path.expanduser()
    if not path.exists():
        raise click.UsageError(f"no such file or folder: {path}")
    if session_id is not None and path.is_dir():
        raise click.UsageError("--session-id names one conversation: give a file, not a folder")
    settings = settings_or_exit_code(setting_args)
    if isinstance(settings, int):
        return settings
    return run_import(settings, path, format_name, session_id, as_json=as_json)
