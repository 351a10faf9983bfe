"""A store option of the wrong kind (text where a number belongs, a mapping that is none) is a
VectorStoreError that names the option, whichever backend reads it (`stores/options.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from remecli.vector.stores import VectorStoreError, make_store


def test_an_option_of_the_wrong_kind_names_its_key(tmp_path: Path) -> None:
    pg = {"backend": "pgvector", "dsn": "postgresql://u@127.0.0.1:1/db", "max_size": "many"}
    with pytest.raises(VectorStoreError, match="max_size must be a whole number, not 'many'"):
        make_store(pg, tmp_path, 8)
    qdrant = {"backend": "qdrant", "url": "http://127.0.0.1:1", "port": "x"}
    with pytest.raises(VectorStoreError, match="port must be a whole number, not 'x'"):
        make_store(qdrant, tmp_path, 8)
    chroma = {"backend": "chroma", "host": "127.0.0.1", "port": 1, "headers": "x"}
    with pytest.raises(VectorStoreError, match="headers must be a mapping"):
        make_store(chroma, tmp_path, 8)
