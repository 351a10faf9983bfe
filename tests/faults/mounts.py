"""Real disk faults without touching the machine's mounts: a read-only bind mount or a small
tmpfs in a private mount namespace (`unshare -m`; a user namespace, `unshare -rm`, when not
root). Commands run inside it through `nsenter`; the test reads its files through
`/proc/<holder>/root`. Tests skip where namespaces are not allowed."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest


def _unshare() -> list[str]:
    user = [] if os.geteuid() == 0 else ["-r"]
    return ["unshare", *user, "-m", "--propagation", "private"]


@functools.cache
def namespaces_work() -> bool:
    """True when this machine lets us mount a tmpfs in a private mount namespace."""
    if shutil.which("unshare") is None or shutil.which("nsenter") is None:
        return False
    probe = subprocess.run(
        [
            *_unshare(),
            "sh",
            "-c",
            "mount -t tmpfs -o size=64k tmpfs /mnt 2>/dev/null || "
            "mount -t tmpfs -o size=64k tmpfs /tmp",
        ],
        capture_output=True,
        timeout=30,
    )
    return probe.returncode == 0


def need_namespaces() -> None:
    """Skip the calling test where mount namespaces are not allowed."""
    if not namespaces_work():
        pytest.skip("needs `unshare -m` (mount namespaces) to simulate the disk fault")


def read_only(folder: Path, argv: Sequence[str]) -> list[str]:
    """`argv` run with `folder` bind-mounted read-only over itself (EROFS for every write)."""
    script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'
    return [*_unshare(), "sh", "-c", script, str(folder), *argv]


_FILL = r"""
import os, sys, time
folder = os.path.join(sys.argv[1], "fillers")
os.makedirs(folder, exist_ok=True)
count = 0
leave = int(sys.argv[2])
if leave:  # all but `leave` bytes, once: what the app writes then is what fills the disk
    stats = os.statvfs(folder)
    with open(os.path.join(folder, "bytes"), "wb") as out:
        out.write(b"\0" * (stats.f_bavail * stats.f_frsize - leave))
    print("full", flush=True)
    while True:
        time.sleep(1)


def take() -> None:
    global count
    try:
        with open(os.path.join(folder, "bytes"), "ab") as out:
            while True:
                out.write(b"\0" * 4096)
                out.flush()
    except OSError:
        pass
    try:
        while True:
            open(os.path.join(folder, str(count)), "wb").close()
            count += 1
    except OSError:
        pass


take()
print("full", flush=True)
while True:  # whatever a process frees (a replaced file, a lock) is taken again at once
    time.sleep(0.01)
    take()
"""


class SmallDisk:
    """A tmpfs of `size` at `mount_point`, seen only by commands run through `run`/`argv`."""

    def __init__(self, mount_point: Path, size: str) -> None:
        self.mount_point = mount_point
        mount_point.mkdir(parents=True, exist_ok=True)
        self.filler: subprocess.Popen[str] | None = None
        options = f"size={size},nr_inodes=2000,mode=0700"
        script = (
            f'mount -t tmpfs -o {options} tmpfs "{mount_point}" && echo ready && exec sleep 900'
        )
        self.holder = subprocess.Popen(
            [*_unshare(), "sh", "-c", script], stdout=subprocess.PIPE, text=True
        )
        assert self.holder.stdout is not None
        if self.holder.stdout.readline().strip() != "ready":
            raise RuntimeError("could not mount the small disk")

    def argv(self, argv: Sequence[str]) -> list[str]:
        """`argv` run inside the namespace (it sees the small disk)."""
        user = [] if os.geteuid() == 0 else ["-U", "--preserve-credentials"]
        return ["nsenter", "-t", str(self.holder.pid), *user, "-m", "--", *argv]

    def path(self, inside: Path) -> Path:
        """The path of `inside` (a path under the mount point) as this process reaches it."""
        return Path(f"/proc/{self.holder.pid}/root") / inside.relative_to("/")

    def fill(self, leave: int = 0) -> None:
        """Take every free byte and every free inode, and keep taking what is freed until
        `free()` (a file freed by a replace must not make room for the next new file); with
        `leave`, take all but `leave` bytes once and leave the rest to the app."""
        self.filler = subprocess.Popen(
            self.argv([sys.executable, "-c", _FILL, str(self.mount_point), str(leave)]),
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.filler.stdout is not None
        assert self.filler.stdout.readline().strip() == "full"

    def free(self) -> None:
        """Give the space back."""
        if self.filler is not None:
            self.filler.kill()
            self.filler.wait(timeout=10)
            self.filler = None
        shutil.rmtree(self.path(self.mount_point / "fillers"), ignore_errors=True)

    def close(self) -> None:
        if self.filler is not None:
            self.filler.kill()
            self.filler.wait(timeout=10)
        self.holder.kill()
        self.holder.wait(timeout=10)


@contextmanager
def small_disk(mount_point: Path, size: str = "8m") -> Iterator[SmallDisk]:
    """A `SmallDisk` for the duration of a test."""
    disk = SmallDisk(mount_point, size)
    try:
        yield disk
    finally:
        disk.close()


def wait_for(check: Callable[[], bool], timeout: float) -> bool:
    """Poll `check()` until true or `timeout` seconds passed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False
