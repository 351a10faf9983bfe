"""`remecli job NAME [--param value …]`: run one memory job, print JSON.

Each job of the registry becomes a click command whose options come from the job's schema:
`--max-results 3` (or `--max_results=3`); a boolean parameter alone means true; a value
starting with `@` is read from that file (`-` for stdin) as JSON, e.g.
`--messages @conversation.json`. `remecli job` alone lists the jobs and their parameters.
When a `remecli serve` runs on the same memory (`remecli.surfaces.daemon`), the job is sent to
it instead of opening the memory here; without one (or `REMECLI_NO_DAEMON=1`) it runs here.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from remecli.config.settings import Settings
from remecli.ops import JOBS, Job, JobError, JobRunner
from remecli.surfaces.cli.base import SettingsCommand

if TYPE_CHECKING:
    from remecli.runtime import FileMemory

DAEMON_WAIT = 600.0  # a job on the server may take long (dream, reindex)
USAGE = "usage: remecli job NAME [--param value ...] [config=NAME] [key=value ...]"


def job_list() -> str:
    """Every job with its parameters, for `remecli job` without a name."""
    lines = [USAGE, "", "jobs:"]
    for job in JOBS.served():
        props = job.input_schema().get("properties", {})
        flags = " ".join(f"--{name.replace('_', '-')}" for name in props)
        mode = "" if job.read_only else "  (writes)"
        lines.append(f"  {job.name} {flags}{mode}")
        lines.append(f"      {job.description.splitlines()[0]}")
    return "\n".join(lines)


def job_value(job: Job, name: str, raw: str) -> Any:
    """The command-line text `raw` of parameter `name` as the JSON value the job takes."""
    schema = job.input_schema().get("properties", {}).get(name, {})
    if raw.startswith("@"):
        source = raw[1:]
        try:
            text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            why = exc.strerror or str(exc) if isinstance(exc, OSError) else "not UTF-8 text"
            raise click.UsageError(f"--{name}: cannot read {source}: {why}") from None
        try:
            return json.loads(text)
        except ValueError as exc:
            raise click.UsageError(f"--{name}: {source} is not valid JSON ({exc})") from None
    if schema.get("type") == "string":
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw  # pydantic coerces or reports it


class JobCommand(SettingsCommand):
    """One job as a command; an unknown option lists the parameters the job takes."""

    def __init__(self, job: Job) -> None:
        schema = job.input_schema()
        required = set(schema.get("required", []))
        params: list[click.Parameter] = []
        for name, prop in schema.get("properties", {}).items():
            need = " (required)" if name in required else ""
            dashed = f"--{name.replace('_', '-')}"
            names = [dashed, f"--{name}", name] if "_" in name else [dashed, name]
            help_text = f"{prop.get('description', '')}{need}"
            if prop.get("type") == "boolean":  # alone: true; or --flag false
                params.append(click.Option(names, is_flag=False, flag_value="true", help=help_text))
            else:
                params.append(click.Option(names, help=help_text))
        super().__init__(job.name, params=params, help=job.description, callback=self._run)
        self.job = job

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as exc:
            known = ", ".join(
                f"--{n.replace('_', '-')}" for n in self.job.input_schema().get("properties", {})
            )
            raise click.UsageError(
                f"{self.job.name} has no parameter {exc.option_name}; it takes: {known or 'none'}",
                ctx,
            ) from None

    def _run(self, setting_args: list[str], **given: str | None) -> int:
        from remecli.surfaces.cli.start import settings_or_exit_code

        arguments = {
            name: job_value(self.job, name, raw) for name, raw in given.items() if raw is not None
        }
        settings = settings_or_exit_code(setting_args)
        if isinstance(settings, int):
            return settings
        return run_job(settings, self.job, arguments)


def job_command(name: str) -> click.Command:
    """The command of job `name`; raises a usage error naming the known jobs."""
    try:
        return JobCommand(JOBS.get(name, served_only=True))
    except JobError as exc:
        raise click.UsageError(str(exc)) from None


def job_names() -> list[str]:
    """The jobs clients run, in the registry's order."""
    return [job.name for job in JOBS.served()]


def one_shot(
    settings: Settings, *, search: bool = True, writes: bool = True
) -> tuple[FileMemory, JobRunner]:
    """The runtime of one command (its composition root: the one memory writer is built here)
    and the runner of its operations; logs go to logs/remecli.log, never over the answer.
    Start it with `background=False`: a one-shot command runs nothing it was not asked for.
    A working dir that cannot be written (read-only, or, for a command that `writes`, a full
    disk) is refused here with one line (click.ClickException), before anything is read or sent."""
    from remecli.config.disk_full import no_space_left
    from remecli.config.locations import Locations
    from remecli.config.logs import setup_logging
    from remecli.llm.logs import route_runtime_logs
    from remecli.runtime import FileMemory, Mode, build_runtime
    from remecli.surfaces.cli.read_only import change_refused, unwritable
    from remecli.surfaces.memory_dir import ensure_private_root

    root = Locations.from_settings(settings).root
    reason = unwritable(root) or (writes and no_space_left(root) and "no space left") or ""
    if reason:
        raise click.ClickException(change_refused(root, reason))
    ensure_private_root(root)  # 0700, before the log file
    setup_logging(settings)
    route_runtime_logs()
    # Mode.JOB: no Auto Dream after a summary this command writes (memory_dream still dreams)
    memory = FileMemory.over(build_runtime(settings, Mode.JOB, search=search))
    return memory, JobRunner(memory)


async def _run(job: Job, arguments: dict[str, Any], settings: Settings) -> dict[str, Any]:
    _memory, runner = one_shot(settings, writes=not job.read_only)
    await runner.start(wait_for_index=True, background=False)
    try:
        return await runner.run(job.name, arguments)
    finally:
        await runner.close(timeout=None)  # a recorded conversation is summarized before exit


def run_on_daemon(settings: Settings, job: Job, arguments: dict[str, Any]) -> int | None:
    """Send the job to the memory's running `remecli serve` (no runtime of our own to open);
    the exit code after printing its answer, or None when there is no server that can take it
    (none announced, read-only for a writing job, unreachable, token refused, not ready)."""
    from remecli.config.locations import Locations
    from remecli.surfaces.daemon import DaemonUnavailable, daemon_token, find_daemon, post_json

    root = Locations.from_settings(settings).root
    daemon = find_daemon(root)
    if daemon is None or (daemon.read_only and not job.read_only):
        return None
    token = daemon_token(root)
    if token is None:
        return None
    try:
        status, answer = post_json(f"{daemon.url}/api/{job.name}", token, arguments, DAEMON_WAIT)
    except DaemonUnavailable:
        return None
    if status == 200 and isinstance(answer, dict):
        print(json.dumps(answer, ensure_ascii=False, indent=2))
        return 0
    if status in (401, 503) or not isinstance(answer, dict) or "error" not in answer:
        return None
    print(f"remecli: {answer['error']}", file=sys.stderr)
    return 1


def run_job(settings: Settings, job: Job, arguments: dict[str, Any]) -> int:
    """Run one job and print its result as JSON; exit 1 with one line when it fails. A running
    `remecli serve` on the same memory runs it when there is one (the fast path)."""
    answered = run_on_daemon(settings, job, arguments)
    if answered is not None:
        return answered
    try:
        result = asyncio.run(_run(job, arguments, settings))
    except JobError as exc:
        print(f"remecli: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(result, ensure_ascii=False, indent=2, default=str))
    return 0
