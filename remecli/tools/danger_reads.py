"""Danger rules for reads: secret files (credentials, private keys) and symlinks that lead a
read out of the workspace."""

from __future__ import annotations

import os
import re
from pathlib import Path

from remecli.tools._files import leaves_workspace
from remecli.tools.context import ToolContext
from remecli.tools.danger_types import Danger

# Paths under the home folder that hold credentials (public keys are not secrets).
_SECRET_PATHS = re.compile(
    r"/\.(aws/credentials|ssh/id_[\w-]+|netrc|git-credentials|docker/config\.json|kube/config"
    r"|pgpass|gnupg/.+|config/gh/hosts\.yml|npmrc|pypirc)$"
)
# The same, as a word in a command line (`~/.aws/credentials`, `$HOME/.ssh/id_rsa`, …).
_SECRET_WORD = re.compile(
    r"""(?:~|\$HOME|\$\{HOME\}|/home/[^/\s'"]+|/root)/\.(?:aws/credentials|ssh/id_[\w-]+"""
    r"""(?!\.pub)\b|netrc|git-credentials|docker/config\.json|kube/config|pgpass|gnupg/"""
    r"""|config/gh/hosts\.yml|npmrc|pypirc)"""
)


def is_secret_file(path: Path) -> bool:
    """True for a credentials file or private key (symlinks followed)."""
    real = os.path.realpath(path)
    return bool(_SECRET_PATHS.search(real)) or bool(_SECRET_PATHS.search(str(path)))


def secret_in_command(command: str) -> Danger | None:
    """A command line that names a secret file (it would reach the model or the network)."""
    found = _SECRET_WORD.search(command)
    if found:
        return Danger("secret-read", f"reads a secret file: {found.group(0)}")
    return None


def read_danger(tool_name: str, path: str, ctx: ToolContext) -> Danger | None:
    """`read`/`ls` of a secret file, or through a symlink inside the workspace that leads out."""
    if not path:
        return None
    target = ctx.resolve(path)
    if tool_name == "read" and is_secret_file(target):
        return Danger("secret-read", f"read of a secret file: {path}")
    if leaves_workspace(target, ctx.workspace):  # also when it leads to a scratch folder
        real = os.path.realpath(target)
        return Danger(
            "outside-workspace",
            f"{tool_name} outside the workspace, through a symlink: {path} → {real}",
        )
    return None
