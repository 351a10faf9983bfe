"""What this machine sends: every change staged and committed, except a file in which the
redactor still finds a secret (it stays here, unstaged, and the sync names it)."""

from __future__ import annotations

from remecli.notes.redact import redact_secrets
from remecli.sync.git import EMPTY_TREE, Git
from remecli.sync.state import Refused

BINARY_PROBE = 8192


def _secret_kinds(data: bytes | None) -> list[str]:
    """The kinds of secret the redactor finds in `data` ([] for none, or for binary data)."""
    if data is None or b"\0" in data[:BINARY_PROBE]:
        return []
    kinds = redact_secrets(data.decode("utf-8", errors="replace")).kinds
    return sorted(set(kinds))


def commit_local(git: Git, message: str) -> tuple[list[str], list[Refused]]:
    """Stage everything that travels, unstage files holding a secret, commit the rest; the
    paths committed and the files refused."""
    git.run("add", "-A")
    head = git.head()
    base = head or EMPTY_TREE
    changed = git.paths("diff-index", "--cached", "--name-only", "-z", "--no-renames", base)
    written = set(
        git.paths(
            "diff-index", "--cached", "--name-only", "-z", "--no-renames", "--diff-filter=AM", base
        )
    )
    contents = git.blobs([f":{path}" for path in sorted(written)])
    refused = []
    for path in sorted(written):
        kinds = _secret_kinds(contents.get(f":{path}"))
        if kinds:
            refused.append(Refused(path, kinds))
    if refused:
        names = "\0".join(r.path for r in refused).encode("utf-8", "surrogateescape")
        unstage = ["reset", "-q", "HEAD"] if head else ["rm", "-q", "--cached"]
        git.run(*unstage, "--pathspec-from-file=-", "--pathspec-file-nul", input=names)
    committed = [path for path in changed if path not in {r.path for r in refused}]
    if committed:
        git.run("commit", "-q", "--no-verify", "-m", message)
    return committed, refused
