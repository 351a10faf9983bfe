"""`remecli links` as a user runs it (a real process)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_process import run_remecli


def test_links_json_depth_and_direction(linked_dir: Path) -> None:
    wd = f"working_dir={linked_dir}"
    proc = run_remecli("links", "memory/2025-01-31/deploy.md", "--json", wd, cwd=linked_dir.parent)
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert set(answer) >= {"path", "out", "in"}
    assert answer["path"] == "memory/2025-01-31/deploy.md" and answer["name"] == "Deploy steps"
    assert {"path", "name", "description"} <= set(answer["out"][0])
    assert len(answer["out"]) == 4 and len(answer["in"]) == 3
    proc = run_remecli(
        "links", "MEMORY.md", "--json", "--depth", "2", "--direction=out", wd, cwd=linked_dir.parent
    )
    deeper = json.loads(proc.stdout)
    assert deeper["in"] == [] and max(i["depth"] for i in deeper["out"]) == 2
    # a note name and a path from the current folder work too; plain output is readable
    proc = run_remecli("links", "Release checklist", wd, cwd=linked_dir.parent)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("digest/procedure/release-checklist.md  Release checklist")
    assert "← memory/2025-01-31/deploy.md  Deploy steps" in proc.stdout
    proc = run_remecli("links", "wd/MEMORY.md", "--json", wd, cwd=linked_dir.parent)
    assert json.loads(proc.stdout)["path"] == "MEMORY.md"


def test_links_errors_rename_delete_and_dangling(linked_dir: Path) -> None:
    wd = f"working_dir={linked_dir}"
    proc = run_remecli("links", "memory/nope.md", wd, cwd=linked_dir)
    assert proc.returncode == 1 and "no note 'memory/nope.md'" in proc.stderr
    proc = run_remecli("links", "MEMORY.md", "--depth", "zero", wd, cwd=linked_dir)
    assert proc.returncode == 2 and "--depth needs a whole number" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = run_remecli(
        "links",
        "digest/procedure/rollback.md",
        "--rename",
        "digest/procedure/undo.md",
        wd,
        cwd=linked_dir,
    )
    assert proc.returncode == 0, proc.stderr
    assert "links rewritten in 2" in proc.stdout
    assert "[[undo]]" in (linked_dir / "memory/2025-01-31/deploy.md").read_text()
    proc = run_remecli("links", "digest/procedure/undo.md", "--delete", wd, cwd=linked_dir)
    assert proc.returncode == 0 and "still linked from memory/2025-01-31/deploy.md" in proc.stdout
    proc = run_remecli("links", "--dangling", "--json", wd, cwd=linked_dir)
    targets = {(d["source"], d["target"]) for d in json.loads(proc.stdout)}
    assert ("memory/2025-01-31/deploy.md", "undo") in targets
    assert ("MEMORY.md", "personal/editor") in targets
    proc = run_remecli("links", wd, cwd=linked_dir)
    assert proc.returncode == 2 and "needs a PATH" in proc.stderr
    proc = run_remecli("links", "--rebuild", wd, cwd=linked_dir)
    assert proc.returncode == 0 and proc.stdout.strip() == "link graph rebuilt: 5 notes"
