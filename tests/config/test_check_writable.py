"""`check_writable` answers for the working dir however many checks run at once in a process:
its probe file had one name per process, so two checks at once (the TUI's start ran twice when a
subclass called `super().on_ready()`) removed each other's probe and one said the working dir
"cannot be written (No such file or directory)"."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from remecli.config.logs import check_writable
from remecli.config.settings import Settings


def test_checks_at_once_all_find_the_working_dir_writable(tmp_path: Path) -> None:
    settings = Settings(working_dir=str(tmp_path / ".reme"))
    with ThreadPoolExecutor(max_workers=8) as pool:
        roots = list(pool.map(lambda _: check_writable(settings), range(400)))
    assert set(roots) == {tmp_path / ".reme"}
    assert [p.name for p in (tmp_path / ".reme").iterdir()] == []  # no probe left behind
