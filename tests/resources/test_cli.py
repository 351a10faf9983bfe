"""`remecli ingest` as a user runs it: a real process against the fake server."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess

from remecli.notes.writer import MemoryWriter
from tests.cli_process import fake_llm_settings, run_remecli
from tests.resources.conftest import answer, resource_cards


def remecli(tmp_path, fake_llm, *args: str) -> subprocess.CompletedProcess:
    settings = fake_llm_settings(tmp_path / ".reme", fake_llm.base_url)
    return run_remecli("ingest", *args, *settings, cwd=tmp_path, timeout=120)


def test_ingest_copies_a_file_in_and_prune_asks_for_yes(tmp_path, fake_llm):
    original = tmp_path / "plan.md"
    original.write_text("# Plan\n\nMigrate atlas to PostgreSQL 16 in March.\n", encoding="utf-8")
    fake_llm.add_text(answer("Atlas migration", "Atlas moves to PostgreSQL 16 in March."))
    done = remecli(tmp_path, fake_llm, str(original))
    assert done.returncode == 0, done.stderr
    root = tmp_path / ".reme"
    card = f"memory/{dt.date.today():%Y-%m-%d}/atlas-migration.md"
    assert done.stdout.startswith("created") and card in done.stdout
    assert original.is_file()  # copied, not moved
    copied = root / "resource" / "plan.md"
    assert copied.read_text(encoding="utf-8") == original.read_text(encoding="utf-8")

    again = remecli(tmp_path, fake_llm, str(original))  # the same file: nothing to do
    assert again.returncode == 0 and again.stdout.startswith("unchanged")
    assert len(fake_llm.chat_requests()) == 1

    other = tmp_path / "elsewhere" / "plan.md"
    other.parent.mkdir()
    other.write_text("another plan\n", encoding="utf-8")
    clash = remecli(tmp_path, fake_llm, str(other))
    assert clash.returncode == 2 and "already exists with other content" in clash.stderr
    assert copied.read_text(encoding="utf-8") != "another plan\n"

    copied.unlink()
    listed = remecli(tmp_path, fake_llm, "--prune")
    assert listed.returncode == 0 and card in listed.stdout and "--prune --yes" in listed.stdout
    assert (root / card).is_file()  # only listed
    removed = remecli(tmp_path, fake_llm, "--prune", "--yes")
    assert removed.returncode == 0 and f"removed   {card}" in removed.stdout
    assert not (root / card).exists() and resource_cards(root) == []
    assert MemoryWriter(root).history(root / card)[-1].source == "resource prune"  # restorable
    day_page = (root / "memory" / f"{dt.date.today():%Y-%m-%d}.md").read_text(encoding="utf-8")
    assert card not in day_page
    assert "No card has lost" in remecli(tmp_path, fake_llm, "--prune").stdout


def test_ingest_reports_a_binary_file_in_one_line(tmp_path, fake_llm):
    binary = tmp_path / "blob.txt"
    binary.write_bytes(b"\x00\x01\x02" * 100)
    done = remecli(tmp_path, fake_llm, str(binary))
    assert done.returncode == 1 and "binary" in done.stderr and "Traceback" not in done.stderr
    assert fake_llm.chat_requests() == []
    wrong = remecli(tmp_path, fake_llm, str(tmp_path / "nope.md"))
    assert wrong.returncode == 2 and "no such file" in wrong.stderr
    stray = remecli(tmp_path, fake_llm, "--yes")
    assert stray.returncode == 2 and "--prune" in stray.stderr


def test_ingest_names_the_links_it_does_not_follow(tmp_path, fake_llm):
    """A resource folder holding only a link out of the working dir says which link it skipped
    and why, instead of "Nothing to ingest"."""
    root = tmp_path / ".reme"
    (root / "resource").mkdir(parents=True)
    outside = tmp_path / "secret.txt"
    outside.write_text("not for memory\n", encoding="utf-8")
    (root / "resource" / "out.txt").symlink_to(outside)
    (root / "resource" / "gone.md").symlink_to(tmp_path / "missing.md")
    done = remecli(tmp_path, fake_llm)
    assert done.returncode == 0, done.stderr
    assert "Nothing to ingest" not in done.stdout
    for name in ("out.txt", "gone.md"):
        assert f"resource/{name}: not read: it leads out of the working dir" in done.stderr
    assert "put a copy of the file itself into resource/" in done.stderr
    assert fake_llm.chat_requests() == []


def test_ingest_refuses_a_fifo_at_once_naming_it(tmp_path, fake_llm):
    """A named pipe is never opened (reading one waits for a writer forever): refused at once,
    named, whether given as PATH or dropped into resource/, and the other files go on."""
    pipe = tmp_path / "pipe.md"
    os.mkfifo(pipe)
    done = remecli(tmp_path, fake_llm, str(pipe))
    assert done.returncode == 1, done.stderr
    assert "pipe.md is a named pipe (FIFO), not a regular file" in done.stderr
    resource = tmp_path / ".reme" / "resource"
    resource.mkdir(parents=True, exist_ok=True)
    os.mkfifo(resource / "inside.md")
    (resource / "plan.md").write_text("# Plan\n\nShip it.\n", encoding="utf-8")
    fake_llm.add_text(answer("Plan", "The plan is to ship it this week."))
    every = remecli(tmp_path, fake_llm, "--json")
    outcomes = {o["resource"]: o for o in json.loads(every.stdout)}
    assert outcomes["resource/plan.md"]["status"] == "created", outcomes
    assert outcomes["resource/inside.md"]["status"] == "skipped"
    assert "named pipe (FIFO)" in outcomes["resource/inside.md"]["message"]
