"""The one runner of the `git` binary for sync: the memory's git dir, no prompts, one-line errors."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's empty tree (SHA-1 repositories)
NETWORK_TIMEOUT = 120.0  # fetch and push; a dead ssh host gives up sooner (ConnectTimeout)
LOCAL_TIMEOUT = 300.0


class GitError(Exception):
    """A git command failed; the message is git's own first useful line."""


class GitMissing(GitError):
    """No `git` binary on PATH."""


def first_line(text: str) -> str:
    """The first line of git's stderr that says something (hints and blank lines skipped)."""
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("hint:"):
            return line.removeprefix("fatal: ").removeprefix("error: ")
    return "git failed without a message"


@dataclass
class Git:
    """`git` on the git dir `git_dir` whose work tree is `work_tree` (the working dir)."""

    git_dir: Path
    work_tree: Path
    machine: str = "remecli"
    env: Mapping[str, str] = field(default_factory=dict)

    def _env(self) -> dict[str, str]:
        env = {
            **os.environ,
            "GIT_DIR": str(self.git_dir),
            "GIT_WORK_TREE": str(self.work_tree),
            "GIT_TERMINAL_PROMPT": "0",  # a remote asking for a password fails, never hangs
            "GIT_LITERAL_PATHSPECS": "1",
            "LC_ALL": "C",
            **self.env,
        }
        if "GIT_SSH_COMMAND" not in os.environ:
            env["GIT_SSH_COMMAND"] = "ssh -o BatchMode=yes -o ConnectTimeout=20"
        return env

    def run(
        self,
        *args: str,
        input: bytes | None = None,
        check: bool = True,
        timeout: float = LOCAL_TIMEOUT,
    ) -> subprocess.CompletedProcess[bytes]:
        """`git ARGS` (output as bytes); raises GitError with git's message when it fails."""
        if shutil.which("git") is None:
            raise GitMissing("sync needs git: install it (e.g. apt install git) and try again")
        command = [
            "git",
            "-c", f"user.name={self.machine}",
            "-c", f"user.email={self.machine}@remecli.invalid",
            "-c", "core.quotepath=off",
            "-c", "merge.renames=false",
            "-c", "commit.gpgsign=false",
            *args,
        ]  # fmt: skip
        try:
            done = subprocess.run(
                command,
                input=input,
                capture_output=True,
                env=self._env(),
                cwd=self.work_tree,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            raise GitError(f"git {args[0]} took over {timeout:.0f} s; try again") from None
        if check and done.returncode != 0:
            raise GitError(first_line(done.stderr.decode("utf-8", "replace")))
        return done

    def text(self, *args: str, input: bytes | None = None) -> str:
        """Stdout of `git ARGS` as text, stripped."""
        return self.run(*args, input=input).stdout.decode("utf-8", "replace").strip()

    def head(self, ref: str = "HEAD") -> str | None:
        """The commit `ref` names (None: unborn or absent)."""
        done = self.run("rev-parse", "--verify", "-q", f"{ref}^{{commit}}", check=False)
        return done.stdout.decode().strip() or None if done.returncode == 0 else None

    def paths(self, *args: str) -> list[str]:
        """The NUL-separated paths `git ARGS -z` prints."""
        out = self.run(*args).stdout.decode("utf-8", "surrogateescape")
        return [p for p in out.split("\0") if p]

    def blobs(self, specs: Sequence[str]) -> dict[str, bytes | None]:
        """The contents of `specs` (`OID`, `REV:path`, `:path`) in one `cat-file --batch`;
        None for a spec that names no blob."""
        if not specs:
            return {}
        out = self.run("cat-file", "--batch", input="".join(f"{s}\n" for s in specs).encode())
        data, at = out.stdout, 0
        found: dict[str, bytes | None] = {}
        for spec in specs:
            end = data.index(b"\n", at)
            header = data[at:end].split()
            at = end + 1
            if len(header) < 3:  # `<spec> missing`
                found[spec] = None
                continue
            size = int(header[2])
            found[spec] = data[at : at + size] if header[1] == b"blob" else None
            at += size + 1
        return found
