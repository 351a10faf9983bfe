"""The Markdown store: memory files and what keeps them safe.

One parser of frontmatter (`frontmatter.py`), one writer of memory files (`writer.py`: atomic,
versioned, redacted, locked; built by a composition root and passed in), versions, redaction,
the lock primitive (`locks.py`), one edit semantics (`matching.py`) and the wikilink graph
(`links/`). Imports only `config` and `llm`.
"""
