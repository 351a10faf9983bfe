"""The shared surfaces under bad input (issue 25, items 15-16): a stdio MCP request the SDK
cannot parse still gets a JSON-RPC error; a client closing its end ends the server quietly;
`serve --port 99999` is a usage error. Real `remecli mcp` / `remecli serve` processes."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

from tests.jobs.conftest import seed

SETTINGS = [
    "search.embedding.backend=none",
    "search.watch=false",
    "llm.base_url=http://127.0.0.1:9/v1",
    "llm.api_key=sk-test",
    "llm.max_retries=0",
]
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "fault-test", "version": "1"},
    },
}


def start_mcp(working_dir: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "remecli", "mcp", f"working_dir={working_dir}", *SETTINGS],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ},
    )


def send(process: subprocess.Popen[bytes], line: str) -> None:
    assert process.stdin is not None
    process.stdin.write(line.encode("ascii") + b"\n")
    process.stdin.flush()


def answer(process: subprocess.Popen[bytes], deadline: float = 60.0) -> dict:
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], deadline)
    assert ready, "no answer from the server"
    return json.loads(process.stdout.readline())


def test_every_stdio_request_gets_an_answer(tmp_path: Path) -> None:
    root = tmp_path / ".reme"
    seed(root)
    process = start_mcp(root)
    try:
        send(process, json.dumps(INIT))
        assert answer(process)["id"] == 1
        send(process, '{"jsonrpc":"2.0","method":"notifications/initialized"}')
        read = '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory_read","arguments":{"path":%s}}}'
        bad = {
            2: '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":"memory_read"}',
            3: read % (3, '"a\\ud800.md"'),
            4: read % (4, "[" * 100_000 + "]" * 100_000),
        }
        for request_id, line in bad.items():
            send(process, line)
            reply = answer(process, 30)
            assert reply["id"] == request_id and reply["error"]["message"], reply
            assert reply["error"]["code"] in (-32600, -32602)
        send(process, read % (5, '"MEMORY.md"'))
        good = answer(process)
        assert good["id"] == 5 and "stg-7" in good["result"]["content"][0]["text"]
        assert process.stdin is not None
        process.stdin.close()
        assert process.wait(60) == 0
    finally:
        process.kill()
        process.wait()


def test_a_client_closing_its_end_stops_the_server_quietly(tmp_path: Path) -> None:
    process = start_mcp(tmp_path / ".reme")
    try:
        send(process, json.dumps(INIT))
        assert answer(process)["id"] == 1
        assert process.stdout is not None
        process.stdout.close()  # the client stops reading
        for request_id in range(2, 20):
            try:
                send(process, json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ping"}))
            except BrokenPipeError:
                break  # the server is gone
            time.sleep(0.2)
        assert process.wait(60) == 0
        assert process.stderr is not None
        assert "Traceback" not in process.stderr.read().decode()
    finally:
        process.kill()
        process.wait()


def test_serve_with_a_port_out_of_range_is_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "remecli",
            "serve",
            "--port",
            "99999",
            f"working_dir={tmp_path / '.reme'}",
            *SETTINGS,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ},
    )
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "--port 99999" in done.stderr
