"""Which memory remecli uses (issue 22.1): a `.reme` here or in a parent, else the memory home
in the XDG data dir, else what `working_dir=` / `REME_WORKING_DIR` name — as real `remecli where`
and `remecli init` processes report it, with their own HOME and XDG dirs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def remecli(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`python -m remecli ARGS` in `cwd` with exactly the REME_/XDG_/HOME variables of `env`."""
    base = {
        k: v for k, v in os.environ.items() if not k.startswith(("REME_", "XDG_")) and k != "HOME"
    }
    return subprocess.run(
        [sys.executable, "-m", "remecli", *args],
        cwd=cwd,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def where(cwd: Path, env: dict[str, str], *settings: str) -> dict[str, object]:
    done = remecli("where", "--json", *settings, cwd=cwd, env=env)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "home").mkdir()
    return {"HOME": str(tmp_path / "home")}


def test_no_project_memory_means_the_memory_home(tmp_path: Path, home: dict[str, str]) -> None:
    folder = tmp_path / "anywhere"
    folder.mkdir()
    found = where(folder, home)
    assert found["memory"] == str(tmp_path / "home" / ".local" / "share" / "remecli")
    assert found["kind"] == "home" and found["exists"] is False
    xdg = {**home, "XDG_DATA_HOME": str(tmp_path / "data")}
    assert where(folder, xdg)["memory"] == str(tmp_path / "data" / "remecli")
    text = remecli("where", cwd=folder, env=xdg).stdout
    assert "memory home" in text and str(tmp_path / "data" / "remecli") in text


def test_a_reme_in_a_parent_is_the_project_memory(tmp_path: Path, home: dict[str, str]) -> None:
    project = tmp_path / "project"
    (project / ".reme").mkdir(parents=True)
    deep = project / "src" / "pkg"
    deep.mkdir(parents=True)
    found = where(deep, home)
    assert found["memory"] == str(project / ".reme") and found["kind"] == "project"
    assert f"a parent, {project}" in str(found["why"])
    here = where(project, home)
    assert here["memory"] == str(project / ".reme") and "current folder" in str(here["why"])


def test_env_and_working_dir_name_the_memory_and_say_so(
    tmp_path: Path, home: dict[str, str]
) -> None:
    project = tmp_path / "project"
    (project / ".reme").mkdir(parents=True)
    env = {**home, "REME_WORKING_DIR": str(tmp_path / "by-env")}
    by_env = where(project, env)
    assert by_env["memory"] == str(tmp_path / "by-env")
    assert by_env["why"] == "set by $REME_WORKING_DIR" and by_env["kind"] == "set"
    by_arg = where(project, env, "working_dir=rel/mem")
    assert by_arg["memory"] == str(project / "rel" / "mem")
    assert by_arg["why"] == "set by working_dir= on the command line"


def test_an_existing_dot_reme_keeps_working(tmp_path: Path, home: dict[str, str]) -> None:
    """A folder used before the memory home existed: `remecli job` still reads ./.reme."""
    folder = tmp_path / "old"
    (folder / ".reme").mkdir(parents=True)
    (folder / ".reme" / "MEMORY.md").write_text("# MEMORY\n\n- the answer is 42\n")
    done = remecli(
        "job",
        "memory_read",
        "--path",
        "MEMORY.md",
        "search.embedding.backend=none",
        cwd=folder,
        env=home,
    )
    assert done.returncode == 0, done.stderr
    assert "the answer is 42" in done.stdout
    assert not (tmp_path / "home" / ".local" / "share" / "remecli").exists()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_init_in_a_git_work_tree_ignores_the_memory_and_says_so(
    tmp_path: Path, home: dict[str, str]
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".gitignore").write_text("*.pyc")  # no newline at the end
    done = remecli("init", cwd=repo, env=home)
    assert done.returncode == 0, done.stderr
    assert f"created a project memory at {repo / '.reme'}" in done.stdout
    assert f"added .reme/ to {repo / '.gitignore'}" in done.stdout
    assert (repo / ".gitignore").read_text() == "*.pyc\n.reme/\n"
    assert (repo / ".reme" / "MEMORY.md").is_file()
    assert (repo / ".reme").stat().st_mode & 0o777 == 0o700
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert ".reme" not in status
    found = where(repo / ".reme" / "memory", home)  # inside the memory itself: still it
    assert found["memory"] == str(repo / ".reme") and found["ignored_by_git"] is True
    again = remecli("init", cwd=repo, env=home)
    assert again.returncode == 0 and "already exists" in again.stdout
    assert (repo / ".gitignore").read_text().count(".reme/") == 1


def test_init_outside_git_touches_no_gitignore(tmp_path: Path, home: dict[str, str]) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    done = remecli("init", str(folder), cwd=tmp_path, env=home)
    assert done.returncode == 0, done.stderr
    assert "gitignore" not in done.stdout and not (folder / ".gitignore").exists()
    assert where(folder, home)["kind"] == "project"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_new_named_project_memory_in_a_git_tree_is_ignored(
    tmp_path: Path, home: dict[str, str]
) -> None:
    """First use with an explicit project choice (`working_dir=.reme`) creates it ignored."""
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    done = remecli(
        "job",
        "memory_list",
        "working_dir=.reme",
        "search.embedding.backend=none",
        cwd=repo,
        env=home,
    )
    assert done.returncode == 0, done.stderr
    assert (repo / ".reme" / "MEMORY.md").is_file()
    assert (repo / ".gitignore").read_text() == ".reme/\n"


def test_init_says_which_memory_it_replaces_and_how_to_reach_it(
    tmp_path: Path, home: dict[str, str]
) -> None:
    """Issue 37.12: after `init`, `sessions` and `resume=last` no longer see the memory home's
    conversations; init says so, and `sessions` in the project says where they are."""
    memory_home = tmp_path / "home" / ".local" / "share" / "remecli"
    sessions = memory_home / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "abc.jsonl").write_text(
        json.dumps(
            {
                "t": "msg",
                "at": "2026-12-01T10:00:00",
                "msg": {"role": "user", "content": "plan the garden"},
            }
        )
        + "\n"
    )
    folder = tmp_path / "plain"
    folder.mkdir()
    done = remecli("init", cwd=folder, env=home)
    assert done.returncode == 0, done.stderr
    assert (
        f"remecli now uses it in {folder} and below instead of the memory home {memory_home} "
        f"(its 1 saved conversation stays there); to reach that one from here add "
        f"working_dir={memory_home}, e.g. remecli sessions working_dir={memory_home}"
    ) in done.stdout
    listed = remecli("sessions", cwd=folder, env=home).stdout
    assert f"the memory home's conversations: remecli sessions working_dir={memory_home}" in listed
    there = remecli("sessions", f"working_dir={memory_home}", cwd=folder, env=home).stdout
    assert "plan the garden" in there
