"""The one lock primitive (`notes.locks`): threads and processes excluded, non-blocking answers,
replaced lock files, and no other module taking `flock` itself."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import remecli
from remecli.notes.locks import FileLock, FileLocks, is_locked

HOLD_IN_CHILD = """
import sys, time
from pathlib import Path
from remecli.notes.locks import FileLock
with FileLock(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def test_a_second_holder_in_another_thread_waits_or_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "a.lock"
    order: list[str] = []
    with FileLock(path):
        assert not FileLock(path).acquire(blocking=False)
        assert is_locked(path)

        def waiter() -> None:
            with FileLock(path):
                order.append("second")

        thread = threading.Thread(target=waiter)
        thread.start()
        time.sleep(0.1)
        order.append("first done")
    thread.join(5)
    assert order == ["first done", "second"]
    assert not is_locked(path)


def test_another_process_holding_the_lock_blocks_this_one(tmp_path: Path) -> None:
    path = tmp_path / "b.lock"
    child = subprocess.Popen(
        [sys.executable, "-c", HOLD_IN_CHILD, str(path), "0.5"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        assert is_locked(path)
        assert not FileLock(path).acquire(blocking=False)
        started = time.monotonic()
        with FileLock(path):
            assert time.monotonic() - started > 0.1
    finally:
        child.wait(10)


def test_a_lock_file_unlinked_by_its_holder_is_locked_afresh(tmp_path: Path) -> None:
    path = tmp_path / "c.lock"
    first = FileLock(path)
    assert first.acquire()
    path.unlink()  # what a session lock's holder does on release
    first.release()
    second = FileLock(path)
    assert second.acquire(blocking=False)
    assert path.exists() and second.fd is not None
    second.release()


def test_without_create_a_missing_file_is_not_locked(tmp_path: Path) -> None:
    path = tmp_path / "gone.json"
    assert not FileLock(path, create=False).acquire(blocking=False)
    assert not path.exists()
    assert not is_locked(path)


def test_file_locks_hold_one_lock_per_target(tmp_path: Path) -> None:
    locks = FileLocks(tmp_path / "locks")
    order: list[str] = []

    def other_thread() -> None:
        with locks.hold(tmp_path / "x.md"):
            order.append("thread")

    with locks.hold(tmp_path / "x.md"), locks.hold(tmp_path / "y.md"):
        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join(0.2)
        order.append("main")  # x.md is held: the other thread still waits
    thread.join(5)
    assert order == ["main", "thread"]


def test_no_module_but_notes_locks_takes_flock_itself() -> None:
    package = Path(remecli.__file__).parent
    offenders = [
        path.relative_to(package).as_posix()
        for path in package.rglob("*.py")
        if re.search(r"\bfcntl\b", path.read_text(encoding="utf-8"))
    ]
    assert offenders == ["notes/locks.py"]
