"""`remecli job NAME [--param value …] [config=…] [key=value …]`: run one memory job, print JSON.

Parameters come from the job's schema: `--max-results 3` (or `--max_results=3`); a flag alone
means true; a value starting with `@` is read from that file (`-` for stdin) as JSON, e.g.
`--messages @conversation.json`. `remecli job` alone lists the jobs and their parameters.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any

from remecli.ops import JOBS, Job, JobError, JobRunner
from remecli.surfaces.cli.start import UsageError, settings_or_exit_code, usage_exit_code

_SETTING = re.compile(r"^[A-Za-z_][\w.]*=")
USAGE = "usage: remecli job NAME [--param value ...] [config=NAME] [key=value ...]"


class HelpRequested(Exception):
    """`--help` after a job name: print its help."""


def job_list() -> str:
    """Every job with its parameters, for `remecli job` without a name."""
    lines = [USAGE, "", "jobs:"]
    for job in JOBS:
        props = job.input_schema().get("properties", {})
        flags = " ".join(f"--{name.replace('_', '-')}" for name in props)
        mode = "" if job.read_only else "  (writes)"
        lines.append(f"  {job.name} {flags}{mode}")
        lines.append(f"      {job.description.splitlines()[0]}")
    return "\n".join(lines)


def job_help(job: Job) -> str:
    """One job's description and parameters."""
    lines = [f"remecli job {job.name}: {job.description}", "", "parameters:"]
    schema = job.input_schema()
    required = set(schema.get("required", []))
    for name, prop in schema.get("properties", {}).items():
        need = " (required)" if name in required else ""
        lines.append(f"  --{name.replace('_', '-')}{need}  {prop.get('description', '')}")
    return "\n".join(lines)


def _value(job: Job, name: str, raw: str | None) -> Any:
    schema = job.input_schema().get("properties", {}).get(name)
    if schema is None:
        known = ", ".join(
            f"--{n.replace('_', '-')}" for n in job.input_schema().get("properties", {})
        )
        raise UsageError(f"{job.name} has no parameter --{name}; it takes: {known or 'none'}")
    if raw is None:
        return True
    if raw.startswith("@"):
        source = raw[1:]
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
        try:
            return json.loads(text)
        except ValueError as exc:
            raise UsageError(f"--{name}: {source} is not valid JSON ({exc})") from None
    if schema.get("type") == "string":
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw  # pydantic coerces or reports it


def parse_args(argv: list[str]) -> tuple[Job, dict[str, Any], list[str]]:
    """Split argv into the job, its arguments and the settings arguments."""
    if not argv or argv[0].startswith("-"):
        raise UsageError("")
    job = JOBS.get(argv[0])
    if any(a in ("-h", "--help") for a in argv[1:]):
        raise HelpRequested(job_help(job))
    arguments: dict[str, Any] = {}
    settings: list[str] = []
    items = list(argv[1:])
    while items:
        item = items.pop(0)
        if item.startswith("--"):
            name, has_inline, inline = item[2:].partition("=")
            name = name.replace("-", "_")
            if has_inline:
                raw: str | None = inline
            elif items and not items[0].startswith("--") and not _SETTING.match(items[0]):
                raw = items.pop(0)
            else:
                raw = None
            arguments[name] = _value(job, name, raw)
        elif _SETTING.match(item):
            settings.append(item)
        else:
            raise UsageError(f"unexpected argument {item!r}; parameters are --name value")
    return job, arguments, settings


async def _run(job: Job, arguments: dict[str, Any], settings: Any) -> dict[str, Any]:
    runner = JobRunner.from_settings(settings)
    await runner.start(wait_for_index=True)
    try:
        return await runner.run(job.name, arguments)
    finally:
        await runner.close(timeout=None)  # a recorded conversation is summarized before exit


def run(argv: list[str]) -> int:
    """Run `remecli job …`; returns the process exit code."""
    from remecli.config.logs import setup_logging

    try:
        job, arguments, setting_args = parse_args(argv)
    except HelpRequested as exc:
        print(exc)
        return 0
    except UsageError as exc:
        help_text = None if str(exc) else job_list()
        return usage_exit_code(exc, USAGE, prefix="remecli: ", help_text=help_text)
    except JobError as exc:
        print(f"remecli: {exc}", file=sys.stderr)
        return 2
    settings = settings_or_exit_code(setting_args)
    if isinstance(settings, int):
        return settings
    setup_logging(settings)
    try:
        result = asyncio.run(_run(job, arguments, settings))
    except JobError as exc:
        print(f"remecli: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(result, ensure_ascii=False, indent=2, default=str))
    return 0
