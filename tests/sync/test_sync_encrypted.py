"""`remecli sync init --encrypt`: the remote holds only GnuPG ciphertext (git-remote-gcrypt),
and sync works through it as through a plain remote, a push racing the other machine's too.

Needs the distribution's `git-remote-gcrypt` and `gpg`; skipped, saying so, where they are absent.
A throwaway GPG key (no passphrase) in a temporary GNUPGHOME stands for the user's."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.sync.conftest import MEMORY, Home
from tests.sync.test_sync_faults import faulty_git

needs_gcrypt = pytest.mark.skipif(
    shutil.which("git-remote-gcrypt") is None or shutil.which("gpg") is None,
    reason="git-remote-gcrypt or gpg is not installed (apt install git-remote-gcrypt gnupg): "
    "the encrypted remote is not tested here",
)


class EncryptedPair:
    def __init__(self, remote: Path, laptop: Home, desktop: Home, env: dict[str, str]) -> None:
        self.remote, self.laptop, self.desktop, self.env = remote, laptop, desktop, env


@pytest.fixture
def encrypted(tmp_path: Path) -> EncryptedPair:
    gnupg = tmp_path / "gnupg"
    gnupg.mkdir(mode=0o700)
    env = {"GNUPGHOME": str(gnupg)}
    gpg = ["gpg", "--batch", "--passphrase", ""]
    subprocess.run(
        [*gpg, "--quick-gen-key", "remecli test <t@remecli.invalid>", "ed25519", "sign", "never"],
        check=True, capture_output=True, env=env,
    )  # fmt: skip
    listed = subprocess.run(
        ["gpg", "--with-colons", "-k"], check=True, capture_output=True, text=True, env=env
    ).stdout
    key = next(line.split(":")[9] for line in listed.splitlines() if line.startswith("fpr"))
    subprocess.run(
        [*gpg, "--quick-add-key", key, "cv25519", "encr", "never"],
        check=True, capture_output=True, env=env,
    )  # fmt: skip
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    laptop = Home(tmp_path / "laptop" / ".reme", "laptop", tmp_path)
    desktop = Home(tmp_path / "desktop" / ".reme", "desktop", tmp_path)
    laptop.write("MEMORY.md", MEMORY)
    for home in (laptop, desktop):
        done = home.sync("init", str(remote), "--encrypt", "--gpg-key", key, env=env)
        assert done.returncode == 0, done.stderr
    return EncryptedPair(remote, laptop, desktop, env)


def remote_text(remote: Path) -> str:
    """Every object the remote holds, uncompressed, and its branch's file names."""
    git = ["git", "--git-dir", str(remote)]
    objects = subprocess.run(
        [*git, "cat-file", "--batch-all-objects", "--batch"], capture_output=True, check=True
    ).stdout
    names = subprocess.run([*git, "log", "--all", "--name-only"], capture_output=True, text=True)
    return objects.decode("utf-8", "replace") + names.stdout


@needs_gcrypt
def test_the_remote_holds_only_ciphertext_and_both_machines_sync(encrypted: EncryptedPair) -> None:
    laptop, desktop, env = encrypted.laptop, encrypted.desktop, encrypted.env
    assert desktop.read("MEMORY.md") == MEMORY
    laptop.write("memory/2026-01-05/otter.md", "---\nname: Otter\n---\nzanzibarplan\n")
    desktop.write("MEMORY.md", MEMORY + "- quetzalfact\n")
    for home in (laptop, desktop, laptop):
        done = home.sync(env=env)
        assert done.returncode == 0, done.stderr
    for home in (laptop, desktop):
        assert home.read("memory/2026-01-05/otter.md").endswith("zanzibarplan\n")
        assert home.read("MEMORY.md") == MEMORY + "- quetzalfact\n"
    stored = remote_text(encrypted.remote)
    assert stored  # gcrypt's encrypted packs and manifest
    for plain in ("zanzibarplan", "quetzalfact", "editor: vim", "MEMORY.md", "otter.md"):
        assert plain not in stored, plain
    status = laptop.sync("status", env=env)
    assert "gcrypt::" in status.stdout


@needs_gcrypt
def test_a_push_racing_the_other_machine_loses_nothing(
    encrypted: EncryptedPair, tmp_path: Path
) -> None:
    """git-remote-gcrypt pushes as if forced: the desktop's commit, pushed while the laptop's
    push ran, is dropped from the remote. The desktop still holds it and its next sync merges
    and pushes it again; then every machine, and a new one, has both changes."""
    laptop, desktop, env = encrypted.laptop, encrypted.desktop, encrypted.env
    fault_env, marker = faulty_git(tmp_path, encrypted)  # type: ignore[arg-type]
    laptop.write("MEMORY.md", MEMORY + "- from the laptop\n")
    desktop.write("MEMORY.md", MEMORY.replace("shell: zsh", "shell: fish"))
    marker.write_text("other push", encoding="utf-8")  # the desktop pushes meanwhile
    done = laptop.sync(env={**env, **fault_env})
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    for home in (desktop, laptop):
        done = home.sync(env=env)
        assert done.returncode == 0, done.stderr
    want = MEMORY.replace("shell: zsh", "shell: fish") + "- from the laptop\n"
    assert laptop.read("MEMORY.md") == want and desktop.read("MEMORY.md") == want
    fresh = Home(tmp_path / "third" / ".reme", "third", tmp_path)  # what the remote holds now
    done = fresh.sync("init", str(encrypted.remote), "--encrypt", env=env)
    assert done.returncode == 0, done.stderr
    assert fresh.read("MEMORY.md") == want


def test_encryption_without_the_tools_says_what_to_install(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    home = Home(tmp_path / "solo" / ".reme", "solo", tmp_path)
    bare = tmp_path / "bin"
    bare.mkdir()
    (bare / "git").symlink_to(shutil.which("git") or "git")
    done = home.sync("init", str(remote), "--encrypt", env={"PATH": str(bare)})
    assert done.returncode == 1
    assert "apt install git-remote-gcrypt" in done.stderr and "Traceback" not in done.stderr
