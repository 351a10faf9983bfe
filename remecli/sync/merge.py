"""The merge commit of this machine's branch and the remote's, made without a work tree.

`git merge-tree --write-tree` runs the note driver (`merge_driver`) on every file changed on
both sides. What it still reports as conflicted — a binary file changed on both sides, a file
changed on one side and deleted on the other — is kept from both sides here: this side's at its
path and the other's beside it (`plan.conflict-desktop.pdf`); a deleted-and-changed file keeps
the changed version. Nothing is picked silently: `remecli sync status` lists the copies.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from remecli.sync.git import Git, GitError
from remecli.sync.repo import DRIVER, author_of, driver_command
from remecli.sync.state import CONFLICT_COPY


def copy_name(path: str, machine: str) -> str:
    """`a/plan.pdf` → `a/plan.conflict-<machine>.pdf`."""
    posix = PurePosixPath(path)
    name = f"{posix.stem}{CONFLICT_COPY}{machine}{posix.suffix}"
    return str(posix.with_name(name))


def _entry(git: Git, commit: str, path: str) -> tuple[str, str] | None:
    """(mode, blob) of `path` in `commit`, None when it has none."""
    out = git.run("ls-tree", "-z", commit, "--", path).stdout.decode("utf-8", "surrogateescape")
    if not out:
        return None
    mode, _kind, oid = out.split("\t", 1)[0].split(" ")
    return mode, oid


def _keep_both(git: Git, tree: str, ours: str, theirs: str, paths: list[str], other: str) -> str:
    """`tree` with each conflicted path as this side has it and the other side's copy beside."""
    index = git.git_dir / "sync-merge-index"
    index.unlink(missing_ok=True)
    scratch = Git(git.git_dir, git.work_tree, git.machine, {"GIT_INDEX_FILE": str(index)})
    try:
        scratch.run("read-tree", tree)
        lines = []
        for path in paths:
            mine, their = _entry(git, ours, path), _entry(git, theirs, path)
            kept = mine or their
            if kept is None:
                continue
            lines.append(f"{kept[0]} {kept[1]}\t{path}")
            if mine is not None and their is not None and mine[1] != their[1]:
                lines.append(f"{their[0]} {their[1]}\t{copy_name(path, other)}")
        scratch.run("update-index", "--index-info", input="\n".join(lines).encode() + b"\n")
        return scratch.text("write-tree")
    finally:
        index.unlink(missing_ok=True)


def merge_commit(git: Git, ours: str, theirs: str, other: str = "") -> str:
    """The merge commit of `ours` and `theirs` (parents in that order; `other`: the machine that
    made `theirs`, looked up when not given); raises GitError."""
    other = other or author_of(git, theirs)
    done = git.run(
        "-c",
        f"merge.{DRIVER}.driver={driver_command(git.machine, other)}",
        "merge-tree",
        "--write-tree",
        "-z",
        "--name-only",
        "--allow-unrelated-histories",
        ours,
        theirs,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise GitError(done.stderr.decode("utf-8", "replace").strip() or "git merge-tree failed")
    tree, _, rest = done.stdout.decode("utf-8", "surrogateescape").partition("\0")
    conflicted = []
    for path in rest.split("\0"):
        if not path:
            break
        if path not in conflicted:
            conflicted.append(path)
    if conflicted:
        tree = _keep_both(git, tree, ours, theirs, conflicted, other)
    message = f"merge {other} into {git.machine}"
    return git.text("commit-tree", tree, "-p", ours, "-p", theirs, "-m", message)
