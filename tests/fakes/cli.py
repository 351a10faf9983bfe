"""Command line of the fake OpenAI server: ``python -m tests.fakes.fake_openai --help``."""

from __future__ import annotations

import argparse
import json
import threading
from collections.abc import Sequence

from .fake_openai import FakeOpenAIServer
from .turns import turn_from_dict


def main(argv: Sequence[str] | None = None) -> None:
    """Run the fake server as a process (prints its base URL, serves until killed)."""
    parser = argparse.ArgumentParser(description="Scripted fake OpenAI-compatible server.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", help="JSON file: a list of turns")
    parser.add_argument("--fallback-text", help="answer this when the script is used up")
    parser.add_argument("--model", action="append", help="accepted model (repeatable)")
    parser.add_argument("--api-key", help="require this API key")
    parser.add_argument("--no-strict", action="store_true", help="skip request validation")
    parser.add_argument("--log", help="append each request as a JSON line to this file")
    args = parser.parse_args(argv)
    server = FakeOpenAIServer(
        models=args.model,
        require_api_key=args.api_key,
        strict=not args.no_strict,
        port=args.port,
        request_log=args.log,
    )
    if args.script:
        with open(args.script, encoding="utf-8") as handle:
            for item in json.load(handle):
                server.add_turn(turn_from_dict(item))
    if args.fallback_text is not None:
        server.set_fallback(args.fallback_text)
    server.start()
    print(server.base_url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
