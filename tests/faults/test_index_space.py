"""The search index on a disk that fills under it (issue 25.12): the keyword index's own small
tmpfs, filled in a private mount namespace while the chunk store still has room — the worst
case, a sync that wrote the store but not the keyword index. Nothing is deleted or rebuilt, and
the next sync after space returns makes the note searchable."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.faults.mounts import _unshare, need_namespaces, small_disk

NOTE = "# Birds\n\n- herons wade at dawn\n"
MISSED = "- the kingfisher ledger holds opal-7731\n"

_SESSION = r"""
import json, os, subprocess, sys
from pathlib import Path
from remecli.config.search import SearchSettings
from remecli.search import MemoryIndex, SearchRequest

root = Path(sys.argv[1])
keyword = root / "index" / "keyword"
keyword.mkdir(parents=True)
options = "size=2m,nr_inodes=400"
subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(keyword)], check=True)
note = root / "memory" / "birds.md"
note.parent.mkdir(parents=True)
note.write_text(sys.argv[2], encoding="utf-8")
index = MemoryIndex.open(root, SearchSettings.model_validate({"embedding": {"backend": "none"}}))
index.sync_blocking()
inode = (root / "index" / "chunks.sqlite").stat().st_ino


def found() -> bool:
    return any("opal-7731" in r.snippet for r in index.search_blocking(SearchRequest(query="kingfisher")))


fillers = []
try:  # every byte and inode of the keyword index's disk
    with open(keyword / "filler", "wb") as out:
        while True:
            out.write(b"\0" * 4096)
            out.flush()
except OSError:
    pass
try:
    while True:
        fillers.append(keyword / f"filler-{len(fillers)}")
        fillers[-1].touch()
except OSError:
    fillers.pop()
note.write_text(sys.argv[2] + sys.argv[3], encoding="utf-8")
index.sync_blocking(paths=["memory/birds.md"])
during = {"found": found(), "recovered": index.recovered, "waiting": index.space.waiting}
(keyword / "filler").unlink()
for path in fillers:
    path.unlink()
index.sync_blocking(paths=[])  # the next sync, whatever it names
after = {
    "found": found(),
    "recovered": index.recovered,
    "waiting": index.space.waiting,
    "same_store": (root / "index" / "chunks.sqlite").stat().st_ino == inode,
    "chunks": index.store.chunk_count(),
    "keyword": index.keyword.doc_count(),
}
index.close()
print(json.dumps({"during": during, "after": after}))
"""


def test_a_sync_that_meets_a_full_disk_leaves_the_index_and_the_next_one_catches_up(
    tmp_path: Path,
) -> None:
    need_namespaces()
    proc = subprocess.run(
        [*_unshare(), sys.executable, "-c", _SESSION, str(tmp_path / ".reme"), NOTE, MISSED],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    during, after = result["during"], result["after"]
    assert during == {"found": False, "recovered": "", "waiting": True}, result
    assert after["found"] and after["recovered"] == "" and not after["waiting"], result
    assert after["same_store"], result  # the index kept, not deleted and made again
    assert after["chunks"] == after["keyword"], result  # both sides hold the same chunks


_TAKE_BYTES = r"""
import os, sys
try:  # every byte, no inode: a new empty file can still be made
    with open(os.path.join(sys.argv[1], "filler"), "wb") as out:
        while True:
            out.write(b"\0" * 4096)
            out.flush()
except OSError:
    pass
"""


def test_reindex_on_a_full_disk_leaves_the_index_and_says_so(tmp_path: Path) -> None:
    """`remecli reindex` deletes the index before it builds it again: on a full disk it must not
    start. Both a disk out of bytes (an empty file can still be made) and one out of inodes too."""
    need_namespaces()
    with small_disk(tmp_path / "disk") as disk:
        working_dir = disk.mount_point / ".reme"
        settings = [f"working_dir={working_dir}", "search.embedding.backend=none"]
        write = ["job", "memory_write", "--path", "memory/birds.md", "--content", NOTE]
        remecli = [sys.executable, "-m", "remecli"]
        made = subprocess.run(disk.argv([*remecli, *write, *settings]), timeout=240)
        assert made.returncode == 0
        reindex = [*remecli, "reindex", *settings]
        first = subprocess.run(disk.argv(reindex), capture_output=True, text=True, timeout=240)
        assert first.returncode == 0, first.stderr
        store = disk.path(working_dir / "index" / "chunks.sqlite")
        before = store.stat().st_ino
        for fill in ("bytes", "bytes and inodes"):
            if fill == "bytes":
                take = [sys.executable, "-c", _TAKE_BYTES, str(disk.mount_point)]
                subprocess.run(disk.argv(take), check=True, timeout=60)
            else:
                disk.fill()
            full = subprocess.run(disk.argv(reindex), capture_output=True, text=True, timeout=240)
            assert full.returncode != 0, full.stderr
            assert "the disk is full" in full.stderr and "free some space" in full.stderr, fill
            assert "Traceback" not in full.stderr, full.stderr
            assert store.stat().st_ino == before, fill  # not deleted to be made again
        disk.free()
        (disk.path(disk.mount_point) / "filler").unlink()
        again = subprocess.run(disk.argv(reindex), capture_output=True, text=True, timeout=240)
    assert again.returncode == 0, again.stderr
