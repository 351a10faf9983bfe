"""git's merge driver for the memory: `python -m remecli.sync.merge_driver OURS THEIRS %O %A %B
%P` (OURS and THEIRS: the machine names a kept conflict is labelled with).

git hands it the common version (%O), this side's (%A, where the result goes) and the other
side's (%B) of one file changed on both sides, and its path (%P). Text is merged by
`textmerge.merge_note` and the exit code is 0 even when a conflict was kept (it is kept from
both sides in the file, and `remecli sync status` lists it). A file that is not UTF-8 text
(a PDF in resource/) exits 1: sync keeps this side's and writes the other beside it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from remecli.notes.atomic_write import atomic_write_bytes
from remecli.sync.textmerge import merge_note


def _text(data: bytes) -> str | None:
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def main(argv: list[str]) -> int:
    """Merge `argv` = [ours label, theirs label, base, ours, theirs, path] into `ours`; 0
    merged, 1 left to sync."""
    if len(argv) != 6:
        usage = "usage: python -m remecli.sync.merge_driver OURS THEIRS BASE CURRENT OTHER PATH"
        print(usage, file=sys.stderr)
        return 2
    ours_label, theirs_label, base_file, ours_file, theirs_file, path = argv
    sides = [_text(Path(name).read_bytes()) for name in (base_file, ours_file, theirs_file)]
    base, ours, theirs = sides
    if ours is None or theirs is None or (base is None and Path(base_file).stat().st_size):
        return 1
    merged = merge_note(path, base or None, ours, theirs, (ours_label, theirs_label))
    atomic_write_bytes(ours_file, merged.text.encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
