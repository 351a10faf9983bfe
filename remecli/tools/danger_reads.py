"""Danger rules for reads: secret files (credentials, private keys), and reads that leave the
workspace (the file tools' one rule, `file_reach`)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from remecli.tools.context import ToolContext
from remecli.tools.danger_types import Danger
from remecli.tools.file_reach import file_reach

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
    """`read`/`ls` of a secret file, or of a path whose real path is outside the workspace."""
    if not path and tool_name == "read":
        return None
    target = ctx.resolve(path)
    if tool_name == "read" and is_secret_file(target):
        return Danger("secret-read", f"read of a secret file: {path}")
    return file_reach(tool_name, {"path": path}, ctx)
