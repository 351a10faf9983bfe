"""A keyword commit in progress holds up no search of the same process (issue 39.7).

A tantivy commit fsyncs every file of the new segment: 2-4 s on a loaded machine (the benchmark
`coherence.py --defaults --load 14`: p50 2.2 s). The keyword index held its one lock for the
whole commit, and every search of the process waited for it — the search for another process's
card too, already committed and announced. Now the lock guards the searcher only.

The writer is held still while it commits (ordering, not timing).
"""

from __future__ import annotations

import threading
from pathlib import Path

import tantivy

from remecli.search.keyword import KeywordDoc, KeywordIndex

HELD_SECONDS = 30.0  # far longer than a search takes on a loaded machine


class HeldWriterIndex(KeywordIndex):
    """Once `hold()` is called, a commit waits with its writer until `release()`."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.committing, self._gate = threading.Event(), threading.Event()
        self._gate.set()

    def hold(self) -> None:
        self._gate.clear()

    def release(self) -> None:
        self._gate.set()

    def _writer(self) -> tantivy.IndexWriter:
        writer = super()._writer()
        self.committing.set()
        self._gate.wait(120)
        return writer


def test_a_search_runs_while_a_commit_of_the_same_index_is_in_progress(tmp_path: Path) -> None:
    index = HeldWriterIndex(tmp_path / "keyword")
    index.replace([], [KeywordDoc(1, "memory/a.md", "the boat is called zqfirstboat")], [])
    index.hold()
    second = [KeywordDoc(2, "memory/b.md", "the gate code is zqsecondcode")]
    committing = threading.Thread(target=index.replace, args=([], second, []))
    committing.start()
    try:
        assert index.committing.wait(HELD_SECONDS), "the commit never started"
        hits: list[list[tuple[int, float]]] = []
        searching = threading.Thread(target=lambda: hits.append(index.search("zqfirstboat", 5)))
        searching.start()
        searching.join(HELD_SECONDS)
        assert not searching.is_alive(), "the search waited for the commit in progress"
        assert [chunk_id for chunk_id, _ in hits[0]] == [1]
        assert index.search("zqsecondcode", 5) == []  # not committed yet
        assert committing.is_alive()
    finally:
        index.release()
        committing.join(HELD_SECONDS)
    assert [chunk_id for chunk_id, _ in index.search("zqsecondcode", 5)] == [2]
