"""Danger rules for commands that destroy more than files, and for commands the classifier
cannot read: killing processes by name, removing a crontab, pruning Docker data, moving files
onto a device, and a command name that comes from a variable or a substitution."""

from __future__ import annotations

import re
import shutil
import subprocess

from remecli.tools.danger_types import Danger

_KILL_BY_NAME = {"pkill", "killall", "killall5", "skill", "slay"}
_CONTAINER_TOOLS = {"docker", "podman", "nerdctl"}
# A word in command position (start of a line, after a separator or a keyword, after
# VAR=value prefixes) that begins with `$` or a backtick: the shell decides what runs.
_INDIRECT = re.compile(
    r"""(?:^|[;&|(){}\n]|\b(?:then|do|else|elif|eval|exec|command|nohup|time|env|xargs)\s)"""
    r"""\s*(?:[A-Za-z_]\w*=\S*\s+)*["']?(?:\$|`)"""
)


def indirect_command(command: str) -> Danger | None:
    """A command whose program name is a variable or a command substitution (`$x -rf ~`)."""
    if _INDIRECT.search(_without_single_quoted(command)):
        return Danger(
            "indirect-command",
            "runs a command whose name comes from a variable or substitution (cannot be checked)",
        )
    return None


def _without_single_quoted(command: str) -> str:
    """The command with single-quoted text blanked (nothing in it is run)."""
    return re.sub(r"'[^']*'", "''", command)


def system_danger(program: str, args: list[str]) -> Danger | None:
    """Processes killed by name, a removed or replaced crontab, pruned Docker data, files
    moved onto a device."""
    flags = [a for a in args if a.startswith("-")]
    operands = [a for a in args if not a.startswith("-")]
    short = "".join(f[1:] for f in flags if not f.startswith("--"))
    if program in _KILL_BY_NAME:
        return Danger("kill-processes", f"{program} kills every process matching a name")
    if program == "kill" and args and args[-1] in ("-1", "0"):
        return Danger("kill-processes", f"kill {args[-1]} signals every process it can reach")
    if program == "crontab" and ("r" in short or "--remove" in flags or operands):
        return Danger("crontab", "removes or replaces your crontab")
    if program in _CONTAINER_TOOLS:
        words = [a for a in args if not a.startswith("-")][:2]
        if "prune" in words or (words[:1] == ["volume"] and words[1:2] in (["rm"], ["remove"])):
            return Danger("container-data", f"deletes {program} data ({program} {' '.join(words)})")
    if program == "mv" and operands and operands[-1].startswith("/dev/"):
        return Danger("delete", f"mv onto the device {operands[-1]} destroys the files moved")
    return None


def shell_rejects(command: str) -> bool:
    """True when bash itself refuses the syntax (then nothing of it runs); False if it parses
    or no bash is available to ask."""
    bash = shutil.which("bash")
    if bash is None:
        return False
    try:
        proc = subprocess.run(
            [bash, "-n", "-c", command], capture_output=True, timeout=5, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode != 0
