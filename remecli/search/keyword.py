"""The persistent BM25 side: a whoosh index of chunks, updated in place per file."""

from __future__ import annotations

import threading
from pathlib import Path

from whoosh import index as whoosh_index
from whoosh import scoring
from whoosh.fields import ID, NUMERIC, TEXT, Schema
from whoosh.query import Or, Term

from remecli.search.analysis import make_analyzer, make_query_analyzer, query_terms

_META_BOOST = 0.5


def _schema() -> Schema:
    analyzer = make_analyzer()
    return Schema(
        chunk_id=NUMERIC(stored=True, unique=True, bits=64, signed=False),
        path=ID(),
        content=TEXT(analyzer=analyzer, phrase=False),
        meta=TEXT(analyzer=analyzer, phrase=False),
    )


class KeywordIndex:
    """BM25F over chunk text (and, boosted lower, the file path and heading path)."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        if whoosh_index.exists_in(str(folder)):
            self._index = whoosh_index.open_dir(str(folder))
        else:
            self._index = whoosh_index.create_in(str(folder), _schema())
        self._analyzer = self._index.schema["content"].analyzer
        self._query_analyzer = make_query_analyzer()
        self._lock = threading.Lock()
        self._searcher = self._index.searcher(weighting=scoring.BM25F())

    def replace(
        self, remove_paths: list[str], add: list[tuple[int, str, str, str]], remove_ids: list[int]
    ) -> None:
        """Delete chunks of `remove_paths` and ids `remove_ids`; add (id, path, text, meta) rows."""
        if not (remove_paths or add or remove_ids):
            return
        with self._lock:
            writer = self._index.writer(limitmb=128)
            try:
                for path in remove_paths:
                    writer.delete_by_term("path", path)
                for chunk_id in remove_ids:
                    writer.delete_by_term("chunk_id", chunk_id)
                for chunk_id, path, text, meta in add:
                    writer.add_document(chunk_id=chunk_id, path=path, content=text, meta=meta)
            except BaseException:
                writer.cancel()
                raise
            writer.commit()
            self._searcher.close()
            self._searcher = self._index.searcher(weighting=scoring.BM25F())

    def search(self, query: str, limit: int) -> list[tuple[int, float]]:
        """(chunk id, BM25 score) of the best `limit` chunks matching any query term."""
        # Content words only; a query of function words alone keeps the index's analysis.
        terms = query_terms(self._query_analyzer, query) or query_terms(self._analyzer, query)
        if not terms or limit <= 0:
            return []
        clauses = [Term("content", t) for t in terms]
        clauses += [Term("meta", t, boost=_META_BOOST) for t in terms]
        with self._lock:
            searcher = self._searcher
            hits = searcher.search(Or(clauses), limit=limit)
            return [(int(hit["chunk_id"]), float(hit.score)) for hit in hits]

    def doc_count(self) -> int:
        """Number of chunks in the index."""
        with self._lock:
            return self._searcher.doc_count()

    def close(self) -> None:
        """Release the searcher's open files."""
        with self._lock:
            self._searcher.close()
