"""Issue 25.4: a 50 MB `MEMORY.md` (700k bullets) — `-p` answers and exits; chunking is linear.

Before: `-p` answered, then never exited (its exit waited for the first index sync, chunking was
quadratic in list items: killed at 300 s with 2.2 GB RSS).
"""

from __future__ import annotations

import resource
import time
from pathlib import Path

import pytest

from remecli.search.chunker import _parse_blocks, _segment_spans
from tests.cli_process import run_one_shot
from tests.fakes.faulty_openai import FaultyOpenAIServer

BULLETS = 700_000


def _huge_memory_md(root: Path) -> int:
    root.mkdir(parents=True)
    path = root / "MEMORY.md"
    with path.open("w", encoding="utf-8") as out:
        out.write("# MEMORY\n\n")
        for n in range(BULLETS):
            out.write(f"- fact {n}: the user said something worth keeping, once, long ago\n")
    return path.stat().st_size


@pytest.mark.timeout(420)  # a 50 MB file, a real process, a shared machine
def test_one_shot_with_a_50_mb_memory_md_answers_and_exits(
    fake_llm: FaultyOpenAIServer, tmp_path: Path
) -> None:
    size = _huge_memory_md(tmp_path / ".reme")
    assert size > 45_000_000
    # The sync starts with the process and the request only after the imports: 5 s more and the
    # chunking is well under way (20 s only made the test slower: with a closing index that did
    # not stop chunking, -p still ran after 600 s with this delay, on a loaded 2-core machine).
    fake_llm.add_text("The answer.", delay=5)
    fake_llm.set_fallback("The answer.")
    started = time.monotonic()
    proc = run_one_shot(fake_llm.base_url, tmp_path / ".reme", "hello", cwd=tmp_path, timeout=300)
    took = time.monotonic() - started
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "The answer." in proc.stdout
    assert took < 150, f"-p took {took:.0f} s to exit"
    assert peak_mb < 1500, f"peak RSS {peak_mb:.0f} MB"


def test_list_parsing_is_linear_and_pieces_agree_with_one_parse() -> None:
    """20k bullets parse in well under the 9.6 s the quadratic parser took; a long mixed file
    parsed in pieces gives the same blocks as one markdown-it parse of the whole."""
    bullets = ["# MEMORY", ""] + [f"- bullet {n} about something" for n in range(20_000)]
    started = time.process_time()
    assert len(_parse_blocks(bullets)) == 20_001
    assert time.process_time() - started < 3.0
    mixed: list[str] = []
    for n in range(600):
        mixed += [f"## Part {n}", "", f"Para {n} line one", "continued here", ""]
        mixed += [f"- item {n}", f"  - nested {n}", "    ```", "    code", "    ```", ""]
        mixed += ["```", "# not a heading", "- not an item", "```", ""]
        mixed += [f"- short {n}.{k}" for k in range(70 if n % 50 == 0 else 3)] + [""]
    assert len(mixed) > 8000
    whole = [(b.start, b.end, b.kind, b.headings) for b in _parse_blocks(mixed)]
    spans = _segment_spans(mixed)
    assert [(s[0] + 1, s[1], s[2]) for s in spans] == [(b[0], b[1], b[2]) for b in whole]
