"""The fake OpenAI server with embeddings that carry meaning: hashed character trigrams, so texts
sharing words get similar vectors (the plain fake server's vectors are random per text).

    with NgramFakeOpenAIServer() as server:   # same scripting API as FakeOpenAIServer
        ...
"""

from __future__ import annotations

import hashlib
import re
import threading
from typing import Any

from .fake_openai import FakeOpenAIServer
from .http_handler import FakeOpenAIHTTPServer, FakeOpenAIRequestHandler
from .wire import embedding_inputs


def ngram_embedding(text: str, dim: int) -> list[float]:
    """A unit vector of hashed character trigrams of the lower-cased words of `text`."""
    vector = [0.0] * dim
    for word in re.findall(r"\w+", text.lower()):
        padded = f" {word} "
        for k in range(max(len(padded) - 2, 1)):
            digest = hashlib.blake2b(padded[k : k + 3].encode(), digest_size=8).digest()
            slot = int.from_bytes(digest[:4], "little") % dim
            vector[slot] += 1.0 if digest[4] & 1 else -1.0
    norm = sum(v * v for v in vector) ** 0.5 or 1.0
    return [v / norm for v in vector]


class _Handler(FakeOpenAIRequestHandler):
    def _embeddings(self, body: Any) -> None:
        if not isinstance(body, dict) or "input" not in body:
            super()._embeddings(body)
            return
        dim = int(body.get("dimensions") or self.fake.embedding_dim)
        texts = embedding_inputs(body["input"])
        data = [
            {"object": "embedding", "index": i, "embedding": ngram_embedding(t, dim)}
            for i, t in enumerate(texts)
        ]
        usage = {"prompt_tokens": len(texts), "total_tokens": len(texts)}
        self._json(
            200, {"object": "list", "data": data, "model": body.get("model"), "usage": usage}
        )


class _HTTPServer(FakeOpenAIHTTPServer):
    def __init__(self, address: tuple[str, int], fake: FakeOpenAIServer) -> None:
        super(FakeOpenAIHTTPServer, self).__init__(address, _Handler)
        self.fake = fake


class NgramFakeOpenAIServer(FakeOpenAIServer):
    """`FakeOpenAIServer` whose `/v1/embeddings` answers with `ngram_embedding` vectors."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("embedding_dim", 64)
        super().__init__(**kwargs)

    def start(self) -> NgramFakeOpenAIServer:
        """Bind and serve from a daemon thread (as the base class, with the n-gram handler)."""
        httpd = _HTTPServer((self._host, self._port), self)
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self
