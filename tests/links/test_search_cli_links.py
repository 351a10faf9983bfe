"""`remecli search --json` hits carry their links, and `remecli reindex` rebuilds the graph."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def _remecli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "remecli", *args, "search.embedding.backend=none"],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_search_json_hits_carry_links_and_reindex_rebuilds_the_graph(tmp_path: Path) -> None:
    wd = tmp_path / ".reme"
    (wd / "memory").mkdir(parents=True)
    (wd / "MEMORY.md").write_text("# M\n\n- deploy: see [[Deploy]]\n")
    (wd / "memory" / "deploy.md").write_text(
        "---\nname: Deploy\ndescription: how we ship\n---\nWe deploy with make ship.\n"
    )
    found = _remecli("search", "deploy", "--json", f"working_dir={wd}")
    assert found.returncode == 0, found.stderr
    hits = {hit["path"]: hit["links"] for hit in json.loads(found.stdout)}
    assert hits["MEMORY.md"]["out"] == [
        {"path": "memory/deploy.md", "name": "Deploy", "description": "how we ship"}
    ]
    assert [item["path"] for item in hits["memory/deploy.md"]["in"]] == ["MEMORY.md"]
    (wd / "index" / "links.sqlite3").unlink()
    rebuilt = _remecli("reindex", f"working_dir={wd}")
    assert rebuilt.returncode == 0 and "link graph: 2 notes" in rebuilt.stdout, rebuilt.stderr
    assert (wd / "index" / "links.sqlite3").is_file()
