"""`remecli reindex` renders every transcript's readable page again (a page lost or edited comes
back as the transcript says) and removes the pages whose transcript is gone, not the user's files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from remecli.conversation.transcript import Transcript
from remecli.conversation.transcript_page import page_path, render_page
from tests.search.test_transcripts import _records


def test_reindex_renders_the_pages_again(tmp_path: Path) -> None:
    wd = tmp_path / ".reme"
    kept = Transcript(wd / "sessions" / "s1.jsonl")
    kept.append(_records())
    page_path(kept.path).unlink()  # lost, or made before pages existed
    edited = Transcript(wd / "sessions" / "s2.jsonl")
    edited.append(_records()[:1])
    page_path(edited.path).write_text("# my edits\n")
    orphan = wd / "sessions" / "gone.md"
    orphan.write_text(render_page("gone", b'{"t": "removed", "msg_ids": []}\n'))
    mine = wd / "sessions" / "notes.md"
    mine.write_text("# my own notes about sessions\n")
    assert "transcript pages: 2 (sessions/<id>.md)" in _reindex(wd)
    for transcript in (kept, edited):
        page = page_path(transcript.path).read_text(encoding="utf-8")
        assert page == render_page(transcript.path.stem, transcript.path.read_bytes())
    assert not orphan.exists() and mine.read_text() == "# my own notes about sessions\n"


def test_reindex_leaves_a_page_already_up_to_date_untouched(tmp_path: Path) -> None:
    wd = tmp_path / ".reme"
    transcript = Transcript(wd / "sessions" / "s1.jsonl")
    transcript.append(_records())
    page = page_path(transcript.path)
    page.write_text("# my edits\n")
    _reindex(wd)  # the edited page is rendered again
    first = page.stat()
    assert "transcript pages: 1 (sessions/<id>.md)" in _reindex(wd)
    second = page.stat()
    assert (second.st_ino, second.st_mtime_ns) == (first.st_ino, first.st_mtime_ns)
    assert page.read_bytes() == render_page("s1", transcript.path.read_bytes()).encode()


def _reindex(wd: Path) -> str:
    """Run `remecli reindex` on `wd` without embedding; its standard output."""
    done = subprocess.run(
        [sys.executable, "-m", "remecli", "reindex", f"working_dir={wd}"]
        + ["search.embedding.backend=none"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout
