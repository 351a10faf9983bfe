"""A long-lived process (the app, `serve`, `mcp --http`) that says its index is open is ready to
index a change at once: the token encoding the chunker needs is loaded before, not inside the
first sync. Before, a process whose start found nothing changed (another one had indexed the
memory) loaded it in the first sync after a write — seconds, 10–40 s on a loaded machine, while
holding the writer lock every other process's sync waits on — so the first card written through
it reached the other processes that late (benchmarks/coherence.py measured it).

Each check runs in a fresh interpreter: the encoding is loaded once per process."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

PROBE = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from remecli.config.settings import Settings
    from remecli.conversation.file_memory import FileMemory
    from remecli.llm import tokens

    async def main(root: Path, watch: bool) -> None:
        settings = Settings(working_dir=str(root)).with_changes({
            "llm.api_key": "sk-test", "memory.summarize": False, "memory.dream.auto": False,
            "search.embedding.backend": "none", "search.watch": False,
        })
        memory = FileMemory(root, settings=settings)
        await memory.start(wait_for_index=True, background=False, watch=watch)
        try:
            assert memory.index is not None
            print("loaded at start:", tokens._encoding.cache_info().currsize)
        finally:
            await memory.close()

    asyncio.run(main(Path(sys.argv[1]), sys.argv[2] == "watch"))
    """
)


def loaded_at_start(root: Path, watch: bool) -> bool:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(root), "watch" if watch else "once"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stdout.splitlines() if x.startswith("loaded at start:"))
    return line.split(":")[1].strip() == "1"


def test_a_process_that_follows_changes_is_ready_to_index_when_it_says_so(
    tmp_path: Path,
) -> None:
    root = tmp_path / ".reme"
    root.mkdir(mode=0o700)
    (root / "MEMORY.md").write_text("# MEMORY\n\n- The team ships on Fridays.\n")
    assert loaded_at_start(root, watch=False)  # the first process indexes MEMORY.md
    # the memory is indexed now: a second long-lived process has nothing to read at start …
    assert loaded_at_start(root, watch=True)  # … and is ready for the first change anyway
    # a one-shot process (a CLI search, `remecli job`) pays nothing it may not need
    assert not loaded_at_start(root, watch=False)
