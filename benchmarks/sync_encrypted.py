"""Sync through an encrypted remote (git-remote-gcrypt) against a plain one (issue 42).

Two homes, N notes, a throwaway GPG key (no passphrase) in a temporary GNUPGHOME; for each
remote kind — a plain bare repository, gcrypt over a bare repository (`gcrypt::/path.git`),
gcrypt over a plain folder (`gcrypt::/path/`, its "local" backend) — the first sync of each
home, then 10 notes changed on each side and the three syncs that carry them, wall clock per
`remecli sync` process, and what the remote's host can read.

    PYTHONPATH=. python benchmarks/sync_encrypted.py [--notes 1000] [--changed 10]
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sync import change, remecli_sync, write_notes  # noqa: E402


def make_key(gnupg: Path) -> str:
    """A signing key with an encryption subkey, no passphrase; its fingerprint."""
    gnupg.mkdir(mode=0o700)
    env = {**os.environ, "GNUPGHOME": str(gnupg)}
    gpg = ["gpg", "--batch", "--passphrase", ""]
    uid = "remecli bench <bench@remecli.invalid>"
    subprocess.run(
        [*gpg, "--quick-gen-key", uid, "ed25519", "sign", "never"],
        check=True,
        env=env,
        capture_output=True,
    )
    listed = subprocess.run(
        ["gpg", "--with-colons", "-k"], check=True, env=env, capture_output=True, text=True
    )
    key = next(line.split(":")[9] for line in listed.stdout.splitlines() if line.startswith("fpr"))
    subprocess.run(
        [*gpg, "--quick-add-key", key, "cv25519", "encr", "never"],
        check=True,
        env=env,
        capture_output=True,
    )
    return key


def run_kind(folder: Path, kind: str, notes: int, changed: int, key: str) -> list[str]:
    base = folder / kind
    laptop, desktop = base / "laptop", base / "desktop"
    write_notes(laptop, notes)
    if kind == "plain":
        remote = base / "remote.git"
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
        extra: list[str] = []
    else:
        remote = base / ("remote.git" if kind == "gcrypt over git" else "remote")
        if kind == "gcrypt over git":
            subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
        else:
            remote.mkdir()
        extra = ["--encrypt", "--gpg-key", key]
    rows = []
    for label, home, machine, args in (
        ("first sync, laptop (pushes all)", laptop, "laptop", ["init", str(remote), *extra]),
        ("first sync, desktop (pulls all)", desktop, "desktop", ["init", str(remote), *extra]),
    ):
        wall, _answer = remecli_sync(home, machine, *args)
        rows.append(f"{kind:<16} {label:<36} {wall:7.2f} s")
    change(laptop, range(0, changed), "laptop")
    change(desktop, range(changed, 2 * changed), "desktop")
    for label, home, machine in (
        ("laptop: push its changes", laptop, "laptop"),
        ("desktop: merge, pull, push", desktop, "desktop"),
        ("laptop: pull the desktop's", laptop, "laptop"),
    ):
        wall, _answer = remecli_sync(home, machine)
        rows.append(f"{kind:<16} {label:<36} {wall:7.2f} s")
    size = sum(p.stat().st_size for p in remote.rglob("*") if p.is_file())
    rows.append(f"{kind:<16} {'remote size':<36} {size / 1e6:7.2f} MB")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--changed", type=int, default=10)
    args = parser.parse_args()
    if shutil.which("git-remote-gcrypt") is None:
        raise SystemExit("git-remote-gcrypt is not installed (apt install git-remote-gcrypt)")
    folder = Path(tempfile.mkdtemp(prefix="remecli-sync-enc-"))
    try:
        key = make_key(folder / "gnupg")
        os.environ["GNUPGHOME"] = str(folder / "gnupg")
        lines = []
        for kind in ("plain", "gcrypt over git", "gcrypt folder"):
            lines += run_kind(folder, kind, args.notes, args.changed, key)
        print(f"{args.notes} notes, {args.changed} changed on each side; wall per `remecli sync`")
        print("\n".join(lines))
        print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(
        "command: PYTHONPATH=. "
        + shlex.join(["python", "benchmarks/sync_encrypted.py", *sys.argv[1:]])
    )


if __name__ == "__main__":
    main()
