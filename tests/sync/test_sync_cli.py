"""`remecli sync` as a user runs it: two memory homes, a local bare remote, real git."""

from __future__ import annotations

from pathlib import Path

from tests.sync.conftest import MEMORY, Home, Pair

CARD = (
    "---\nname: Deploy\ndescription: how the shop deploys\ntags: [deploy, shop]\n---\nmake ship\n"
)


def both_sync(pair: Pair) -> None:
    for home in (pair.laptop, pair.desktop, pair.laptop):
        done = home.sync()
        assert done.returncode == 0, done.stderr


def test_notes_from_both_sides_arrive_on_both(pair: Pair) -> None:
    pair.laptop.write("memory/2026-01-05/laptop-note.md", "---\nname: L\n---\nfrom the laptop\n")
    pair.desktop.write("digest/wiki/desk.md", "# Desk\n\nfrom the desktop\n")
    pair.desktop.write("sessions/s1.jsonl", '{"role": "user", "content": "hi"}\n')
    pair.desktop.write("index/junk.db", "derived")
    pair.desktop.write("logs/remecli.log", "a log")
    pair.desktop.write("tokens.json", "{}")
    both_sync(pair)
    for home in (pair.laptop, pair.desktop):
        assert home.read("memory/2026-01-05/laptop-note.md").endswith("from the laptop\n")
        assert home.read("digest/wiki/desk.md").endswith("from the desktop\n")
        assert home.read("sessions/s1.jsonl").startswith('{"role"')
    files = pair.remote_files()
    assert "sessions/s1.jsonl" in files and "digest/wiki/desk.md" in files
    assert not [f for f in files if f.split("/")[0] in ("index", "logs", ".history", ".sync")]
    assert "tokens.json" not in files
    assert "laptop-note.md|L]]" in pair.desktop.read("memory/2026-01-05.md")  # day page made
    status = pair.laptop.sync("status")
    assert status.returncode == 0 and "last sync:" in status.stdout


def test_memory_md_different_lines_merge(pair: Pair) -> None:
    pair.laptop.write("MEMORY.md", MEMORY.replace("editor: vim", "editor: helix"))
    pair.desktop.write("MEMORY.md", MEMORY.replace("os: debian", "os: fedora") + "- new: desk\n")
    both_sync(pair)
    merged = MEMORY.replace("editor: vim", "editor: helix").replace("os: debian", "os: fedora")
    for home in (pair.laptop, pair.desktop):
        assert home.read("MEMORY.md") == merged + "- new: desk\n"
    assert "sync from" in pair.laptop.remecli("memory", "history", "MEMORY.md").stdout


def test_memory_md_same_line_is_a_conflict_kept_from_both_sides(pair: Pair) -> None:
    pair.laptop.write("MEMORY.md", MEMORY.replace("host: stg-7", "host: stg-8"))
    pair.desktop.write("MEMORY.md", MEMORY.replace("host: stg-7", "host: stg-9"))
    assert pair.laptop.sync().returncode == 0
    done = pair.desktop.sync()
    assert done.returncode == 1
    assert "conflict: MEMORY.md" in done.stderr and "<<<<<<<" in done.stderr
    text = pair.desktop.read("MEMORY.md")
    assert "<<<<<<< desktop\n- host: stg-9\n=======\n- host: stg-8\n>>>>>>> laptop\n" in text
    assert "- editor: vim\n" in text and "- os: debian\n" in text
    assert pair.laptop.sync().returncode == 1  # the laptop sees the same conflict
    assert pair.laptop.read("MEMORY.md") == text
    status = pair.laptop.sync("status")
    assert "conflict: MEMORY.md" in status.stdout
    pair.laptop.write("MEMORY.md", MEMORY.replace("host: stg-7", "host: stg-9"))  # resolved
    assert pair.laptop.sync().returncode == 0
    assert pair.desktop.sync().returncode == 0
    assert "conflict" not in pair.desktop.sync("status").stdout
    assert pair.desktop.read("MEMORY.md") == MEMORY.replace("host: stg-7", "host: stg-9")


def test_tags_merge_as_a_set(pair: Pair) -> None:
    rel = "memory/2026-01-05/deploy.md"
    pair.laptop.write(rel, CARD)
    both_sync(pair)
    pair.laptop.write(rel, CARD.replace("[deploy, shop]", "[deploy, shop, laptop]"))
    pair.desktop.write(rel, CARD.replace("[deploy, shop]", "[deploy, ops]"))
    both_sync(pair)
    from remecli.notes.frontmatter import read_frontmatter

    for home in (pair.laptop, pair.desktop):
        note = read_frontmatter(home.read(rel))
        assert note.meta["tags"] == ["deploy", "ops", "laptop"]  # shop: removed on the desktop
        assert note.body == "make ship\n"


def test_a_secret_is_not_pushed_and_named(pair: Pair) -> None:
    key = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z" + "Q7"
    pair.laptop.write("memory/2026-01-05/leak.md", f"OPENAI_API_KEY={key}\n")
    pair.laptop.write("memory/2026-01-05/fine.md", "nothing secret here\n")
    done = pair.laptop.sync()
    assert done.returncode == 1
    assert "memory/2026-01-05/leak.md holds a secret" in done.stderr
    files = pair.remote_files()
    assert "memory/2026-01-05/fine.md" in files and "memory/2026-01-05/leak.md" not in files
    assert key not in pair.remote_history()
    pair.laptop.write("memory/2026-01-05/leak.md", "the key is in the password manager\n")
    assert pair.laptop.sync().returncode == 0
    assert "memory/2026-01-05/leak.md" in pair.remote_files()


def test_an_offline_remote_is_one_clear_line(pair: Pair, tmp_path: Path) -> None:
    pair.remote.rename(tmp_path / "moved.git")
    pair.laptop.write("memory/2026-01-05/n.md", "kept\n")
    done = pair.laptop.sync()
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cannot reach the sync remote")
    assert "next sync" in lines[0] and "Traceback" not in done.stderr
    (tmp_path / "moved.git").rename(pair.remote)
    assert pair.laptop.sync().returncode == 0
    assert "memory/2026-01-05/n.md" in pair.remote_files()


def test_not_set_up_says_how(tmp_path: Path) -> None:
    home = Home(tmp_path / "solo" / ".reme", "solo", tmp_path)
    home.write("MEMORY.md", MEMORY)
    done = home.sync()
    assert done.returncode == 1 and "remecli sync init REMOTE" in done.stderr


def test_day_pages_do_not_bounce_between_machines(pair: Pair) -> None:
    """Each machine orders a day's cards by when it first saw them; a sync regenerates a day
    page only when it does not list exactly the day's cards, so the order never ping-pongs."""
    import json
    import time

    for name in ("note-2", "note-10"):  # written in this order; pulled in path order
        pair.laptop.write(f"memory/2026-01-05/{name}.md", f"---\nname: {name}\n---\nbody\n")
        time.sleep(0.05)
    both_sync(pair)
    pair.desktop.write("memory/2026-01-05/note-10.md", "---\nname: note-10\n---\nbody\nmore\n")
    assert pair.desktop.sync().returncode == 0
    pulled = json.loads(pair.laptop.sync("--json").stdout)
    assert (pulled["pulled"], pulled["pushed"]) == (1, 0)


def test_a_refused_file_changed_on_the_other_side_does_not_stop_the_sync(pair: Pair) -> None:
    rel = "memory/2026-01-05/creds.md"
    pair.laptop.write(rel, "where the deploy key lives\n")
    both_sync(pair)
    key = "sk-proj-" + "Zx9cVb8nMq7wEr6tYu5iOp4aSd3fGh2j" + "K1"
    pair.laptop.write(rel, f"where the deploy key lives\nOPENAI_API_KEY={key}\n")
    pair.desktop.write(rel, "where the deploy key lives: the password manager\n")
    pair.desktop.write("MEMORY.md", MEMORY + "- from the desktop\n")
    assert pair.desktop.sync().returncode == 0
    done = pair.laptop.sync()
    assert done.returncode == 1 and f"{rel} holds a secret" in done.stderr
    assert "kept changing" not in done.stderr
    assert pair.laptop.read("MEMORY.md") == MEMORY + "- from the desktop\n"  # the rest came in
    assert key in pair.laptop.read(rel)  # this machine's file is left as it is
    assert key not in pair.remote_history()


def test_init_takes_a_relative_path_and_names_a_missing_one(pair: Pair, tmp_path: Path) -> None:
    third = Home(tmp_path / "third" / ".reme", "third", tmp_path)
    missing = third.sync("init", "nothere.git")
    assert missing.returncode == 1 and "git init --bare" in missing.stderr
    done = third.sync("init", pair.remote.name)  # relative to the current folder
    assert done.returncode == 0, done.stderr
    assert third.read("MEMORY.md") == MEMORY


def test_a_binary_file_changed_on_both_sides_keeps_both(pair: Pair) -> None:
    rel, gone = "resource/plan.pdf", "memory/2026-01-05/gone.md"
    (pair.laptop.root / "resource").mkdir(parents=True)
    (pair.laptop.root / rel).write_bytes(b"%PDF-1\0base")
    pair.laptop.write(gone, "---\nname: G\n---\nsoon gone\n")
    both_sync(pair)
    (pair.laptop.root / rel).write_bytes(b"%PDF-1\0laptop")
    (pair.desktop.root / rel).write_bytes(b"%PDF-1\0desktop")
    (pair.laptop.root / gone).unlink()  # deleted here, changed there
    pair.desktop.write(gone, "---\nname: G\n---\nsoon gone\nkept\n")
    assert pair.laptop.sync().returncode == 0
    assert pair.desktop.sync().returncode == 1
    copy = "resource/plan.conflict-laptop.pdf"
    assert (pair.desktop.root / rel).read_bytes() == b"%PDF-1\0desktop"
    assert (pair.desktop.root / copy).read_bytes() == b"%PDF-1\0laptop"
    assert pair.desktop.read(gone).endswith("kept\n")  # nothing lost
    status = pair.desktop.sync("status").stdout
    assert f"conflict: {copy}" in status and "delete" in status
    (pair.desktop.root / copy).unlink()
    assert pair.desktop.sync().returncode == 0
    assert pair.laptop.sync().returncode == 0
    assert not (pair.laptop.root / copy).exists()
    assert (pair.laptop.root / rel).read_bytes() == b"%PDF-1\0desktop"
    assert pair.laptop.read(gone).endswith("kept\n")


def test_a_pull_leaves_the_index_to_its_next_user_who_finds_what_came_in(pair: Pair) -> None:
    """`remecli sync` on the command line opens no search index (loading it and the token
    encoding was ~2 s of a 4 s sync); whoever opens the index next reads the pulled files."""
    assert pair.desktop.remecli("search", "anything").returncode == 0  # the desktop's index
    index = pair.desktop.root / "index" / "chunks.sqlite"
    before = index.stat().st_mtime_ns
    pair.laptop.write("memory/2026-01-05/zephyr.md", "---\nname: Zephyr\n---\nquokkaplan\n")
    pair.laptop.write("MEMORY.md", MEMORY + "- marmosetfact\n")
    assert pair.laptop.sync().returncode == 0
    done = pair.desktop.sync("--json")
    assert done.returncode == 0, done.stderr
    assert '"reindexed": 0' in done.stdout and '"pulled": 2' in done.stdout
    assert index.stat().st_mtime_ns == before  # not opened by the sync
    for word, rel in (("quokkaplan", "memory/2026-01-05/zephyr.md"), ("marmosetfact", "MEMORY.md")):
        found = pair.desktop.remecli("search", word, "--json")
        assert found.returncode == 0 and rel in found.stdout, found.stdout


def test_a_clone_of_the_remote_checks_out_the_memory(pair: Pair, tmp_path: Path) -> None:
    """`git init --bare` names `master` as the remote's HEAD while sync pushes `main`: a clone
    checked out nothing. `sync init` points a local remote's HEAD at the branch it pushes."""
    import subprocess

    done = subprocess.run(
        ["git", "clone", "-q", str(pair.remote), str(tmp_path / "clone")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and "nonexistent ref" not in done.stderr, done.stderr
    assert (tmp_path / "clone" / "MEMORY.md").read_text(encoding="utf-8") == MEMORY
