"""One sync: commit here, fetch, merge, write the merge into the working dir, push; retried
when the working dir or the remote moved meanwhile. One at a time per memory (`.sync/lock`)."""

from __future__ import annotations

import datetime as dt
import logging
import re
from dataclasses import dataclass, field

from remecli.notes.layout import WorkingDir
from remecli.notes.locks import FileLock
from remecli.notes.writer import MemoryWriteError, MemoryWriter
from remecli.sync.apply import Moved, apply_commit
from remecli.sync.git import NETWORK_TIMEOUT, Git, GitError, first_line
from remecli.sync.merge import merge_commit
from remecli.sync.outgoing import commit_local
from remecli.sync.repo import BRANCH, GCRYPT, REMOTE, SyncRepo, author_of
from remecli.sync.state import Refused, SyncState, open_conflicts

log = logging.getLogger(__name__)

ATTEMPTS = 4  # the working dir or the remote moved meanwhile: commit and merge again
_CARD = re.compile(r"^memory/(\d{4}-\d{2}-\d{2})/[^/]+\.md$")
_REJECTED = ("non-fast-forward", "fetch first", "rejected", "stale info")


class SyncBusy(Exception):
    """Another sync of this memory is running."""


@dataclass
class SyncReport:
    """What one sync did: the state saved, and the files it wrote here (to reindex)."""

    state: SyncState
    written: list[str] = field(default_factory=list)
    remote: str = ""


def _merge_base(git: Git, ours: str, theirs: str) -> str:
    """The best common ancestor of two commits ("" for unrelated histories): one git call
    says whether there is nothing to pull (it is `theirs`), a fast-forward (`ours`) or a merge."""
    done = git.run("merge-base", ours, theirs, check=False)
    return done.stdout.decode().strip() if done.returncode == 0 else ""


def _listed_cards(text: str) -> set[str]:
    """The card paths a day page's generated list links to."""
    from remecli.knowledge.cards.day_page import block_span  # only when a pull brought cards: the
    from remecli.notes.links.parse import link_targets  # links package costs ~0.3 s to import

    span = block_span(text)
    return set(link_targets(text[span[0] : span[1]])) if span else set()


def _refresh_days(layout: WorkingDir, writer: MemoryWriter, written: list[str]) -> bool:
    """The day pages of days whose cards a sync brought: their card list regenerated when it
    does not link exactly the day's cards (a card came or went). A changed name or description
    comes with the other machine's page; the order (when each machine first saw a card) differs
    between machines, and rewriting it would never settle."""
    days = {m.group(1) for path in written if (m := _CARD.match(path))}
    if not days:
        return False
    from remecli.knowledge.cards.day_page import refresh_day_page

    rewritten = False
    for name in sorted(days):
        day = dt.date.fromisoformat(name)
        try:
            page = layout.daily_file(day)
            text = page.read_text(encoding="utf-8") if page.is_file() else ""
            folder = layout.memory_dir / name
            cards = {f"memory/{name}/{p.name}" for p in folder.glob("*.md") if p.is_file()}
            if _listed_cards(text) != cards:
                rewritten |= refresh_day_page(layout, day, writer, reason="sync")
        except (MemoryWriteError, OSError, ValueError):
            log.exception("could not refresh the day page of %s after a sync", name)
    return rewritten


def _pull(git: Git, writer: MemoryWriter, held: set[str]) -> list[str]:
    """Merge the remote's branch into here (files written, HEAD moved); the paths written.
    `held`: files refused for a secret, left as they are here until the secret is gone."""
    head = git.head()
    theirs = git.head(f"refs/remotes/{REMOTE}/{BRANCH}")
    if theirs is None:
        return []
    base = "" if head is None else _merge_base(git, head, theirs)
    if base == theirs:  # nothing new there
        return []
    other = author_of(git, theirs)
    target = theirs if head is None or base == head else merge_commit(git, head, theirs, other)
    return apply_commit(git, writer, head, target, f"sync from {other}", held, other)


def _moved_on(git: Git, head: str) -> bool:
    """An encrypted remote's branch moved past `head` since the fetch (checked again now):
    git-remote-gcrypt pushes as if forced, and would drop the other machine's commit."""
    git.run("fetch", "-q", REMOTE, timeout=NETWORK_TIMEOUT)
    theirs = git.head(f"refs/remotes/{REMOTE}/{BRANCH}")
    return theirs is not None and _merge_base(git, head, theirs) != theirs


def _push(git: Git, url: str) -> str | None:
    """Push HEAD; None when pushed (or nothing to push), "rejected" when the remote moved on,
    else git's message."""
    head = git.head()
    if head is None or head == git.head(f"refs/remotes/{REMOTE}/{BRANCH}"):
        return None
    if url.startswith(GCRYPT) and _moved_on(git, head):
        return "rejected"
    done = git.run(
        "push", "-q", REMOTE, f"HEAD:refs/heads/{BRANCH}", check=False, timeout=NETWORK_TIMEOUT
    )
    if done.returncode == 0:
        git.run("update-ref", f"refs/remotes/{REMOTE}/{BRANCH}", head)
        return None
    text = done.stderr.decode("utf-8", "replace")
    if any(word in text for word in _REJECTED):
        return "rejected"
    return first_line(text)


def sync_once(repo: SyncRepo, layout: WorkingDir, writer: MemoryWriter) -> SyncReport:
    """Run one sync of the working dir (see the module docstring); raises SyncBusy, NotSetUp."""
    git = repo.require()
    lock = FileLock(repo.lock_file)
    if not lock.acquire(blocking=False):
        raise SyncBusy("another sync of this memory is running; try again when it is done")
    try:
        return _locked_sync(repo, git, layout, writer)
    finally:
        lock.release()


def _locked_sync(repo: SyncRepo, git: Git, layout: WorkingDir, writer: MemoryWriter) -> SyncReport:
    repo.configure()
    repo.clear_stale_locks()
    previous = SyncState.load(repo.state_file)
    url = repo.remote_url()
    state = SyncState()
    written: list[str] = []
    pushed: set[str] = set()
    refused: list[Refused] = []
    try:
        for _attempt in range(ATTEMPTS):
            committed, refused = commit_local(git, f"{repo.machine}: memory changes")
            pushed.update(committed)
            fetched = git.run("fetch", "-q", REMOTE, check=False, timeout=NETWORK_TIMEOUT)
            if fetched.returncode != 0:
                reason = first_line(fetched.stderr.decode("utf-8", "replace"))
                state.outcome = "offline"
                state.message = (
                    f"cannot reach the sync remote {url} ({reason}); what changed here is "
                    "committed locally and goes out at the next sync"
                )
                break
            try:
                pulled = _pull(git, writer, {r.path for r in refused})
            except Moved as moved:
                log.info("sync: %s changed while merging; merging again", moved)
                continue
            written += pulled
            if _refresh_days(layout, writer, pulled):  # day pages the pull's cards changed
                more, refused = commit_local(git, f"{repo.machine}: day pages after a sync")
                pushed.update(more)
            failure = _push(git, url)
            if failure == "rejected":
                continue
            if failure is not None:
                state.outcome, state.message = "error", f"push to {url} failed: {failure}"
                break
            state.outcome = "ok"
            git.run("-c", "gc.auto=6700", "gc", "--auto", "--quiet", check=False)
            break
        else:
            state.outcome = "error"
            state.message = "memory or the remote kept changing during the sync; run it again"
    except GitError as exc:
        state.outcome, state.message = "error", f"sync failed: {exc}"
    candidates = [c.path for c in previous.conflicts] + written
    state.conflicts = open_conflicts(layout.root, candidates)
    state.refused = refused
    state.pulled, state.pushed = len(set(written)), len(pushed)
    if state.outcome == "ok":
        state.outcome, state.message = _summary(url, state)
    state.save(repo.state_file)
    return SyncReport(state, sorted(set(written)), url)


def _summary(url: str, state: SyncState) -> tuple[str, str]:
    line = f"synced with {url}: {state.pulled} file(s) in, {state.pushed} out"
    if state.refused:
        names = ", ".join(f"{r.path} ({', '.join(r.kinds)})" for r in state.refused)
        return "refused", (
            f"{line}; NOT pushed, the redactor finds a secret in: {names}. Remove it from the "
            "file (or restore an earlier version: remecli memory history PATH) and sync again"
        )
    if state.conflicts:
        names = ", ".join(c.path for c in state.conflicts)
        return "conflicts", f"{line}; {len(state.conflicts)} conflict(s) to resolve: {names}"
    return "ok", line
