"""The sync repository of one working dir: `<working_dir>/.sync/git`, its work tree the working
dir, and what travels.

What travels is a whitelist (`EXCLUDE`, written to the git dir's `info/exclude`, so nothing
new that remecli keeps in the working dir can leak by default): MEMORY.md, the day pages and
cards, interests (`memory/`), the digest, resources, transcripts and their pages
(`sessions/*.jsonl`, `sessions/*.md`) and dream changesets (`.dream/runs/`). The index, logs,
tokens, `.serve.json`, locks, pending work, saved session states, tool results, checkpoints,
the vector store and `.history` stay on this machine. Versions stay per machine: each machine's
writer keeps a version of every file before it changes it (a sync's change too), so history is
complete on each side without shipping every version to every machine and merging version logs.
"""

from __future__ import annotations

import shlex
import shutil
import socket
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from remecli.config.privacy import private_dirs
from remecli.sync.git import Git, GitError

SYNC_DIR = ".sync"
BRANCH = "main"
REMOTE = "origin"
DRIVER = "remecli"
EXCLUDE = """\
# written by remecli sync: only the Markdown memory travels (a whitelist)
/*
!/MEMORY.md
!/memory/
!/digest/
!/resource/
!/sessions/
/sessions/*
!/sessions/*.jsonl
!/sessions/*.md
!/.dream/
/.dream/*
!/.dream/runs/
.*.tmp
*.lock
"""
ATTRIBUTES = f"""\
# written by remecli sync: notes merge with remecli's driver (sets, lines, both sides kept)
* merge={DRIVER}
"""


GCRYPT = "gcrypt::"  # git-remote-gcrypt: the remote holds only GnuPG ciphertext


class NotSetUp(Exception):
    """Sync was not set up for this memory; the message says how."""


def encrypted(remote: str) -> str:
    """`remote` behind git-remote-gcrypt (`gcrypt::REMOTE`); NotSetUp when the tools are missing."""
    missing = [tool for tool in ("git-remote-gcrypt", "gpg") if shutil.which(tool) is None]
    if missing:
        raise NotSetUp(
            f"an encrypted remote needs {' and '.join(missing)}: install it (e.g. apt install "
            "git-remote-gcrypt gnupg), make a GPG key (gpg --quick-gen-key), and try again"
        )
    return remote if remote.startswith(GCRYPT) else f"{GCRYPT}{remote}"


def machine_name(configured: str = "") -> str:
    """What this machine is called in commits and conflict markers: `sync.machine`, else the
    host name."""
    name = (configured or socket.gethostname() or "machine").strip()
    return "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in name) or "machine"


@dataclass(frozen=True)
class SyncRepo:
    """The git dir of the working dir `root` (`root/.sync/git`) and sync's own files."""

    root: Path
    machine: str = "remecli"

    @property
    def folder(self) -> Path:
        """`<working_dir>/.sync/`: the git dir, the lock, the last sync's state (local)."""
        return self.root / SYNC_DIR

    @property
    def git_dir(self) -> Path:
        return self.folder / "git"

    @property
    def lock_file(self) -> Path:
        return self.folder / "lock"

    @property
    def state_file(self) -> Path:
        return self.folder / "state.json"

    @property
    def git(self) -> Git:
        return Git(self.git_dir, self.root, self.machine)

    @property
    def exists(self) -> bool:
        return (self.git_dir / "HEAD").is_file()

    def require(self) -> Git:
        """The git runner; NotSetUp when `remecli sync init` was never run here."""
        if not self.exists:
            raise NotSetUp(
                "sync is not set up for this memory: run `remecli sync init REMOTE` (a bare "
                "repository path or an ssh/https URL) first"
            )
        return self.git

    def remote_url(self) -> str:
        """The remote's URL ("" when none is set)."""
        done = self.git.run("config", "--get", f"remote.{REMOTE}.url", check=False)
        return done.stdout.decode("utf-8", "replace").strip()

    def init(self, remote: str, keys: Sequence[str] = ()) -> None:
        """Make the git dir (or keep it) and point it at `remote`; the settings refreshed.
        `keys`: the GPG keys an encrypted remote (`gcrypt::`) is encrypted to (none: this
        machine's default key)."""
        private_dirs(self.folder)
        git = self.git
        if not self.exists:
            git.run("init", "-q", "--shared=0600", "-b", BRANCH)
        if self.remote_url():
            git.run("remote", "set-url", REMOTE, remote)
        else:
            git.run("remote", "add", REMOTE, remote)
        if remote.startswith(GCRYPT):
            participants = f"remote.{REMOTE}.gcrypt-participants"
            git.run("config", participants, " ".join(keys) or "simple")
        else:
            point_head_at_branch(remote)
        self.configure()

    def configure(self) -> None:
        """Work tree, whitelist, attributes and the merge driver (this Python), checked every
        sync and written only when they differ (a moved folder, another Python)."""
        git = self.git
        wanted = {
            "core.bare": "false",
            "core.worktree": str(self.root),
            "core.autocrlf": "false",
            "core.untrackedCache": "true",  # `git add -A` over 10,000 notes: only new folders
            "gc.auto": "0",  # no gc in the middle of a sync; `git gc` when wanted
            f"merge.{DRIVER}.name": "remecli note merge",
            f"merge.{DRIVER}.driver": driver_command(self.machine, "other"),
        }
        listed = git.run("config", "--local", "--list", "-z").stdout.decode("utf-8", "replace")
        have = dict(item.partition("\n")[::2] for item in listed.split("\0") if item)
        for key, value in wanted.items():
            if have.get(_config_key(key)) != value:
                git.run("config", key, value)
        info = self.git_dir / "info"
        private_dirs(info)
        for name, text in (("exclude", EXCLUDE), ("attributes", ATTRIBUTES)):
            path = info / name
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")

    def clear_stale_locks(self) -> None:
        """Lock files a killed git left (only sync runs git here, and it holds `lock_file`)."""
        for name in ("index.lock", "HEAD.lock", f"refs/heads/{BRANCH}.lock"):
            (self.git_dir / name).unlink(missing_ok=True)
        (self.git_dir / "refs" / "remotes" / REMOTE / f"{BRANCH}.lock").unlink(missing_ok=True)


def _config_key(key: str) -> str:
    """`key` as `git config --list` prints it: section and name lower case (a subsection as is)."""
    section, _, rest = key.partition(".")
    middle, _, name = rest.rpartition(".")
    return ".".join(part for part in (section.lower(), middle, name.lower()) if part)


def point_head_at_branch(remote: str) -> None:
    """Point the HEAD of a local bare `remote` at the branch sync pushes when the branch it
    names does not exist: `git init --bare` names `master`, and a `git clone` of the remote
    checked out nothing ("remote HEAD refers to nonexistent ref"). A remote over ssh or https
    is left alone (`git init --bare -b main` makes it right)."""
    path = Path(remote)
    if not path.is_absolute() or not (path / "HEAD").is_file():
        return
    bare = Git(path, path)
    named = bare.run("symbolic-ref", "-q", "HEAD", check=False).stdout.decode().strip()
    if named and named != f"refs/heads/{BRANCH}" and bare.head(named) is None:
        bare.run("symbolic-ref", "HEAD", f"refs/heads/{BRANCH}")


def remote_location(raw: str, cwd: Path) -> str:
    """The remote as git is given it: a local path made absolute (git runs in the working
    dir); a URL or `host:path` as written. Raises NotSetUp for a local path with no repository."""
    text = raw.strip()
    if "://" in text or (":" in text.split("/", 1)[0] and not Path(text).exists()):
        return text  # ssh://, https://, file://, gcrypt::…, or scp-like host:path
    path = Path(text).expanduser()
    path = (path if path.is_absolute() else cwd / path).resolve()
    if not path.is_dir():
        raise NotSetUp(
            f"no git repository at {path}: make one with `git init --bare -b main {path}` (or give an "
            "ssh/https URL)"
        )
    return str(path)


def driver_command(ours: str, theirs: str) -> str:
    """The merge driver's command line (this Python), conflicts labelled `ours` / `theirs`."""
    labels = f"{shlex.quote(ours)} {shlex.quote(theirs)}"
    return f"{shlex.quote(sys.executable)} -m remecli.sync.merge_driver {labels} %O %A %B %P"


def author_of(git: Git, commit: str) -> str:
    """The machine that made `commit` (its author name)."""
    try:
        return git.text("log", "-1", "--format=%an", commit) or "remote"
    except GitError:
        return "remote"
