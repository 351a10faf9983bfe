"""The persistent BM25 side: a tantivy index of chunks, updated in place per chunk id.

Text is analyzed in Python (`analysis.py`: Porter stems, CJK bigrams, identifiers kept whole)
and indexed with tantivy's whitespace tokenizer, so index and queries share one analysis.
Fields: `content` (the chunk), `title` (frontmatter name, description and tags, boosted),
`meta` (file path and heading path, boosted lower); `source`, `day` and `chunk_id` filter.

A raw BM25 score depends on the query (how many terms, how rare), so `query_weight` gives what
it is measured against: the score of a chunk of average length holding every term once
(`fusion.keyword_similarity` turns the ratio into an absolute score).
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

import tantivy

from remecli.config.privacy import private_dirs
from remecli.search.analysis import make_analyzer, make_query_analyzer, query_terms

META_BOOST = 0.5
TITLE_BOOST = 2.0
_WRITER_HEAP = 64_000_000
_LOCK_WAIT_SECONDS = 10.0


@dataclass(slots=True)
class KeywordDoc:
    """One chunk as the keyword side sees it."""

    chunk_id: int
    path: str
    text: str
    meta: str = ""
    title: str = ""
    source: str = "notes"
    day: int = 0  # YYYYMMDD, 0 = undated
    analyzed: bool = False  # text, title and meta are already terms (`KeywordIndex.analyzed`)


@dataclass(slots=True)
class Filters:
    """Restrictions of a search: one source, a day range (YYYYMMDD, inclusive) and, for what
    the index has no field of (a project), the chunk ids allowed (None: any)."""

    source: str | None = None
    since: int | None = None
    until: int | None = None
    chunk_ids: frozenset[int] | None = None

    def active(self) -> bool:
        """True when anything is restricted."""
        return (
            bool(self.source)
            or self.since is not None
            or self.until is not None
            or self.chunk_ids is not None
        )


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field("chunk_id", stored=True, indexed=True, fast=True)
    builder.add_text_field("path", tokenizer_name="raw", index_option="basic")
    builder.add_text_field("source", tokenizer_name="raw", index_option="basic")
    builder.add_integer_field("day", indexed=True, fast=True)
    for name in ("content", "title", "meta"):
        builder.add_text_field(name, tokenizer_name="whitespace", index_option="freq")
    return builder.build()


class KeywordIndex:
    """BM25 over chunk text, frontmatter and location; raises ValueError on a corrupt folder.

    `folder=None` keeps the index in memory (dream searches a fresh snapshot of the digest).
    """

    def __init__(self, folder: Path | None) -> None:
        self._schema = _schema()
        if folder is None:
            self._index = tantivy.Index(self._schema)
        else:
            private_dirs(folder)
            self._index = tantivy.Index(self._schema, path=str(folder), reuse=True)
        self._analyzer = make_analyzer()
        self._query_analyzer = make_query_analyzer()
        self._lock = threading.Lock()  # the searcher only: never held while committing
        self._writing = threading.Lock()  # one writer of this process at a time
        self._searcher = self._index.searcher()

    def _terms(self, text: str) -> str:
        return " ".join(self._analyzer(text))

    def analyzed(self, doc: KeywordDoc) -> KeywordDoc:
        """`doc` with its texts turned into terms: the costly part of `replace`, done ahead
        (a sync does it before storing anything, where it can still stop cleanly)."""
        terms = self._terms
        text, title, meta = terms(doc.text), terms(doc.title), terms(doc.meta)
        return replace(doc, text=text, title=title, meta=meta, analyzed=True)

    def _writer(self) -> tantivy.IndexWriter:
        """A writer, waiting a little if another process holds the index lock."""
        deadline = time.monotonic() + _LOCK_WAIT_SECONDS
        while True:
            try:
                return self._index.writer(heap_size=_WRITER_HEAP, num_threads=1)
            except ValueError as exc:
                if "LockBusy" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def replace(
        self, remove_paths: list[str], add: list[KeywordDoc], remove_ids: list[int]
    ) -> None:
        """Delete chunks of `remove_paths` and ids `remove_ids`, then add `add`."""
        if not (remove_paths or add or remove_ids):
            return
        documents = []
        for item in add:
            doc = tantivy.Document()
            doc.add_unsigned("chunk_id", item.chunk_id)
            doc.add_text("path", item.path)
            doc.add_text("source", item.source)
            doc.add_integer("day", item.day)
            item = item if item.analyzed else self.analyzed(item)
            doc.add_text("content", item.text)
            doc.add_text("title", item.title)
            doc.add_text("meta", item.meta)
            documents.append(doc)
        with self._writing:  # a commit (seconds of fsync under load) blocks no search
            writer = self._writer()
            try:
                for path in remove_paths:
                    writer.delete_documents_by_term("path", path)
                for first in range(0, len(remove_ids), 1024):  # (by_term misses u64 fields)
                    ids = [int(i) for i in remove_ids[first : first + 1024]]
                    ids_query = tantivy.Query.term_set_query(self._schema, "chunk_id", ids)
                    writer.delete_documents_by_query(ids_query)
                for doc in documents:
                    writer.add_document(doc)
                writer.commit()
            except BaseException:
                writer.rollback()
                raise
            finally:
                writer.wait_merging_threads()
            self.reload()

    def _query(self, terms: list[str], filters: Filters | None) -> tantivy.Query:
        schema = self._schema
        clauses = []
        for term in terms:
            clauses.append(tantivy.Query.term_query(schema, "content", term))
            title = tantivy.Query.term_query(schema, "title", term)
            clauses.append(tantivy.Query.boost_query(title, TITLE_BOOST))
            meta = tantivy.Query.term_query(schema, "meta", term)
            clauses.append(tantivy.Query.boost_query(meta, META_BOOST))
        query = tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in clauses])
        if filters is None or not filters.active():
            return query
        must = [query]
        if filters.source:
            must.append(tantivy.Query.term_query(schema, "source", filters.source))
        if filters.since is not None or filters.until is not None:
            must.append(
                tantivy.Query.range_query(
                    schema, "day", tantivy.FieldType.Integer, filters.since, filters.until
                )
            )
        if filters.chunk_ids is not None:
            ids = sorted(filters.chunk_ids)
            must.append(tantivy.Query.term_set_query(schema, "chunk_id", ids))
        parts = [must[0]] + [tantivy.Query.const_score_query(q, 0.0) for q in must[1:]]
        return tantivy.Query.boolean_query([(tantivy.Occur.Must, q) for q in parts])

    def _query_terms(self, query: str) -> list[str]:
        # Content words only; a query of function words alone keeps the index's analysis.
        return query_terms(self._query_analyzer, query) or query_terms(self._analyzer, query)

    def query_weight(self, query: str) -> float:
        """The BM25 score of a chunk of average length holding each term of `query` once in
        its text: the sum of the terms' IDF (tantivy's BM25 gives such a term its IDF). A term
        no chunk has weighs most, so a query half of unknown words scores at most half as much
        against it. 0: the query has no term, or the index no chunk."""
        with self._lock:
            searcher = self._searcher
        total = int(searcher.num_docs)
        if total == 0:
            return 0.0
        weight = 0.0
        for term in self._query_terms(query):
            having = int(searcher.doc_freq("content", term))
            weight += math.log(1.0 + (total - having + 0.5) / (having + 0.5))
        return weight

    def search(
        self, query: str, limit: int, filters: Filters | None = None
    ) -> list[tuple[int, float]]:
        """(chunk id, BM25 score) of the best `limit` chunks matching any query term."""
        terms = self._query_terms(query)
        if not terms or limit <= 0 or (filters is not None and filters.chunk_ids == frozenset()):
            return []
        compiled = self._query(terms, filters)
        with self._lock:
            searcher = self._searcher
        hits = searcher.search(compiled, limit, count=False).hits
        if not hits:
            return []
        ids = searcher.fast_field_values("chunk_id", [address for _, address in hits])
        return [(int(i or 0), float(score)) for (score, _), i in zip(hits, ids, strict=True)]

    def reload(self) -> None:
        """See what other processes committed since (a new searcher on the latest commit)."""
        with self._lock:
            self._index.reload()
            self._searcher = self._index.searcher()

    def doc_count(self) -> int:
        """Number of chunks in the index."""
        with self._lock:
            return int(self._searcher.num_docs)

    def close(self) -> None:
        """Drop the searcher (tantivy releases its files when collected)."""
        with self._lock:
            self._searcher = None  # type: ignore[assignment]
