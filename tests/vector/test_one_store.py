"""One store for the assistant and `remecli memories`: at `Locations.vector_store_dir`, an old
`<working_dir>/vector_store/` moved there, secrets redacted on the way in, files private."""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path

from remecli.config.locations import Locations
from tests.vector.helpers import make_reme
from tests.vector.test_cli import runner

GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
PASSWORD = "hunter2secret"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_an_old_store_moves_to_the_one_place(fake_ai, tmp_path, capsys, monkeypatch) -> None:
    async def old_command_line() -> None:  # what `remecli memories` wrote before
        reme = await make_reme(fake_ai, tmp_path, {"backend": "local"}).start()
        await reme.add_memory(memory_content="Alice likes tea", user_name="alice")
        await reme.close()

    asyncio.run(old_command_line())
    layout = Locations(tmp_path)
    assert (layout.old_vector_store_dir / "memories.sqlite3").is_file()
    run = runner(fake_ai, tmp_path, {"backend": "local"}, capsys, monkeypatch)
    listed = run("list", "--user", "alice", "--json", "search.embedding.dimensions=64")
    assert listed.returncode == 0, listed.stderr
    assert [n["content"] for n in json.loads(listed.stdout)] == ["Alice likes tea"]
    assert not layout.old_vector_store_dir.exists()
    assert (layout.vector_store_dir / "memories.sqlite3").is_file()
    assert _mode(layout.vector_store_dir) == 0o700  # the moved folder is private too


def test_the_command_line_stores_no_secret_and_private_files(
    fake_ai, tmp_path, capsys, monkeypatch
) -> None:
    run = runner(fake_ai, tmp_path, {"backend": "local"}, capsys, monkeypatch)
    text = f"token {GITHUB_TOKEN} password: {PASSWORD}"
    added = run("add", text, "--user", "bob", "--json", "search.embedding.dimensions=64")
    assert added.returncode == 0, added.stderr
    assert GITHUB_TOKEN not in added.stdout and PASSWORD not in added.stdout
    assert "[REDACTED:" in json.loads(added.stdout)["content"]
    folder = Locations(tmp_path).vector_store_dir
    files = sorted(folder.iterdir())
    assert files, "the store wrote nothing"
    for file in files:
        data = file.read_bytes()
        assert GITHUB_TOKEN.encode() not in data and PASSWORD.encode() not in data
        assert _mode(file) == 0o600, f"{file.name} is {oct(_mode(file))}"
    assert _mode(folder) == 0o700 and _mode(folder.parent) == 0o700
