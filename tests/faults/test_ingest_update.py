"""`remecli ingest` as a user runs it, again and again: a changed file updates its card in place,
a folder is ingested whole, a file remecli cannot read is skipped and the rest go on, and a
refused file leaves no copy in resource/ (real processes against the fake model)."""

from __future__ import annotations

import datetime as dt
import json
import subprocess

import pytest

from tests.cli_process import fake_llm_settings, run_remecli
from tests.resources.conftest import answer, resource_cards, resource_text
from tests.resources.pdf_bytes import tiny_pdf


def ingest(tmp_path, fake_llm, *args: str) -> subprocess.CompletedProcess[str]:
    settings = fake_llm_settings(tmp_path / ".reme", fake_llm.base_url)
    return run_remecli("ingest", *args, *settings, cwd=tmp_path, timeout=120)


@pytest.mark.timeout(400)  # real processes on a shared machine
def test_a_changed_file_ingested_again_updates_its_card_in_place(tmp_path, fake_llm) -> None:
    plan = tmp_path / "docs" / "plan.md"
    plan.parent.mkdir()
    plan.write_text("# Plan\n\nMigrate atlas to PostgreSQL 16 in March.\n", encoding="utf-8")
    fake_llm.add_text(answer("Atlas migration", "Atlas moves to PostgreSQL 16 in March."))
    first = ingest(tmp_path, fake_llm, str(plan))
    assert first.returncode == 0 and first.stdout.startswith("created"), first.stderr
    root = tmp_path / ".reme"
    [(card, _meta)] = resource_cards(root)

    plan.write_text("# Plan\n\nMigrate atlas to PostgreSQL 17 in May.\n", encoding="utf-8")
    fake_llm.add_text(answer("Atlas migration", "Atlas moves to PostgreSQL 17 in May."))
    again = ingest(tmp_path, fake_llm, str(plan))
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("updated") and card in again.stdout
    [(same, meta)] = resource_cards(root)  # one card, the same file: updated in place
    assert same == card and meta["description"] == "Atlas moves to PostgreSQL 17 in May."
    assert "PostgreSQL 17" in (root / "resource" / "plan.md").read_text(encoding="utf-8")
    assert "PostgreSQL 17" in resource_text(fake_llm.chat_requests()[-1].body)
    assert sorted(p.name for p in (root / "resource").iterdir()) == [".origins.json", "plan.md"]
    folder = ingest(tmp_path, fake_llm, str(plan.parent))  # its folder: the same copy, same card
    assert folder.returncode == 0 and folder.stdout.startswith("unchanged resource/plan.md")
    assert not (root / "resource" / "docs").exists()

    other = tmp_path / "elsewhere" / "plan.md"  # another file of the same name: never overwritten
    other.parent.mkdir()
    other.write_text("a different plan\n", encoding="utf-8")
    clash = ingest(tmp_path, fake_llm, str(other))
    assert clash.returncode == 2 and "--replace" in clash.stderr, clash.stderr
    fake_llm.add_text(answer("A different plan", "Another plan that replaced the first one."))
    replaced = ingest(tmp_path, fake_llm, "--replace", str(other))
    assert replaced.returncode == 0 and replaced.stdout.startswith("updated"), replaced.stderr
    assert [c for c, _ in resource_cards(root)] == [card]


@pytest.mark.timeout(400)  # real processes on a shared machine
def test_a_folder_is_ingested_and_what_cannot_be_read_is_skipped(tmp_path, fake_llm) -> None:
    folder = tmp_path / "papers"
    (folder / "code").mkdir(parents=True)
    (folder / "atlas.pdf").write_bytes(
        tiny_pdf([["Atlas runbook", "Failover takes 40 seconds."], ["Page 2: restore drill"]])
    )
    (folder / "code" / "backup.py").write_text('"""Nightly atlas backup."""\n', encoding="utf-8")
    (folder / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(200))
    (folder / "notes.md").write_text("# Notes\n\nPager rotates weekly.\n", encoding="utf-8")
    for name, what in [("Atlas runbook", "PDF"), ("Backup script", "code"), ("Pager", "notes")]:
        fake_llm.add_text(answer(name, f"The {what} resource of the atlas team."))
    done = ingest(tmp_path, fake_llm, str(folder), "--json")
    assert done.returncode == 0, done.stderr
    outcomes = {o["resource"]: o["status"] for o in json.loads(done.stdout)}
    assert outcomes == {
        "resource/papers/atlas.pdf": "created",
        "resource/papers/code/backup.py": "created",
        str(folder / "photo.png"): "skipped",
        "resource/papers/notes.md": "created",
    }
    root = tmp_path / ".reme"
    assert not (root / "resource" / "papers" / "photo.png").exists()
    shown = [resource_text(r.body) for r in fake_llm.chat_requests()]
    assert "Failover takes 40 seconds." in shown[0] and "Page 2: restore drill" in shown[0]
    assert "Nightly atlas backup" in shown[1]
    assert len(resource_cards(root)) == 3

    # named one by one: the file remecli cannot read is reported, the others still go in
    (tmp_path / "todo.md").write_text("# Todo\n\nRenew the TLS cert.\n", encoding="utf-8")
    fake_llm.add_text(answer("Todo", "Renew the TLS certificate of atlas."))
    batch = ingest(tmp_path, fake_llm, str(folder / "photo.png"), str(tmp_path / "todo.md"))
    assert batch.returncode == 1 and "Traceback" not in batch.stderr
    assert "photo.png: remecli cannot read this type of file" in batch.stderr
    assert batch.stdout.startswith("created   resource/todo.md")


@pytest.mark.timeout(400)  # real processes on a shared machine
def test_a_refused_ingest_leaves_no_copy_in_resource(tmp_path, fake_llm) -> None:
    huge = tmp_path / "dump.txt"
    huge.write_bytes(b"atlas log line\n" * 800_000)  # 12 MB, over the 10 MB limit
    broken = tmp_path / "config.json"
    broken.write_text('{"atlas": tru', encoding="utf-8")
    done = ingest(tmp_path, fake_llm, str(huge), str(broken))
    assert done.returncode == 1 and "over the 10 MB limit" in done.stderr
    assert "not valid JSON" in done.stderr
    folder = tmp_path / ".reme" / "resource"
    assert not folder.exists() or list(folder.iterdir()) == []
    assert fake_llm.chat_requests() == []
    today = dt.date.today()
    assert not (tmp_path / ".reme" / "memory" / f"{today:%Y-%m-%d}").exists()


@pytest.mark.timeout(400)  # real processes on a shared machine
def test_ingesting_the_folder_that_holds_the_memory_leaves_the_memory_out(
    tmp_path, fake_llm
) -> None:
    """`remecli ingest ~` with the memory in ~/mem (working_dir=~/mem, a folder not hidden):
    its conversations, index and resource/ are never copied into resource/ (they were,
    recursively, before)."""
    root = tmp_path / "mem"
    (root / "sessions").mkdir(parents=True)
    (root / "sessions" / "s1.jsonl").write_text('{"role": "user"}\n', encoding="utf-8")
    (tmp_path / "notes.md").write_text("# Notes\n\nPager rotates weekly.\n", encoding="utf-8")
    fake_llm.add_text(answer("Pager", "The pager rotates weekly."))
    settings = fake_llm_settings(root, fake_llm.base_url)
    done = run_remecli("ingest", str(tmp_path), *settings, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    copied = sorted(
        p.relative_to(root / "resource").as_posix() for p in root.rglob("resource/**/*")
    )
    assert copied == [".origins.json", tmp_path.name, f"{tmp_path.name}/notes.md"], copied


def test_an_empty_path_is_refused_not_read_as_the_current_folder(tmp_path, fake_llm) -> None:
    (tmp_path / "notes.md").write_text("# Notes\n", encoding="utf-8")
    done = ingest(tmp_path, fake_llm, "")
    assert done.returncode == 2 and "PATH is empty" in done.stderr, done.stderr
    assert not (tmp_path / ".reme" / "resource").exists()
    assert fake_llm.chat_requests() == []


@pytest.mark.timeout(400)  # real processes on a shared machine
def test_a_model_that_fails_every_file_stops_the_batch_and_the_rest_wait(
    tmp_path, fake_llm
) -> None:
    """Many tiny resources and a model that answers none (the fake server has no turn left):
    three files fail alike, the others are not tried (they were, one by one: hours for a
    folder of thousands) and stay in resource/; one line says how to retry."""
    folder = tmp_path / ".reme" / "resource" / "many"
    folder.mkdir(parents=True)
    for k in range(30):
        (folder / f"f{k:02d}.txt").write_text(f"tiny note {k}\n", encoding="utf-8")
    (folder / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n")  # skipped: still reported
    done = ingest(tmp_path, fake_llm)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert [line.split()[0] for line in lines] == ["failed"] * 3 + ["skipped", "waiting"], lines
    assert "27 more file(s), not tried: 3 files in a row failed" in lines[-1]
    assert "run `remecli ingest` again" in lines[-1]
    assert len(fake_llm.chat_requests()) == 3
    assert len(list(folder.iterdir())) == 31
    as_json = json.loads(ingest(tmp_path, fake_llm, "--json").stdout)
    assert [o["status"] for o in as_json].count("waiting") == 27
