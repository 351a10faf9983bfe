"""Instances that start while another one is indexing do not take its half-written index for
damage (issue 22: a second instance logged "search index … unreadable (keyword index holds 67
chunks, store 66); rebuilding it" and rebuilt everything). Real processes: one pauses in the
middle of its first sync (the store ahead of the keyword index, the writer lock held) while two
`remecli job memory_search` processes start at once on the same memory."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.cli_process import fake_llm_settings

NOTES = 120

PAUSED_SYNC = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from remecli.config.search import SearchSettings
    from remecli.search import MemoryIndex

    settings = SearchSettings.model_validate({"embedding": {"backend": "none"}})
    index = MemoryIndex.open(Path(sys.argv[1]), settings)

    def progress(stage, done, total):
        if stage == "reading" and done == total // 2:
            print("paused", flush=True)
            sys.stdin.readline()

    index.sync_blocking(progress)
    index.close()
    print("synced", flush=True)
    """
)

# `remecli job memory_search ARGS` as `python -m remecli` runs it, saying on stderr when it first
# asks for the index's writer lock (it has reached the index): the test waits for that, not a
# fixed time, before the first process goes on.
REACHING = textwrap.dedent(
    """
    import sys
    from remecli.__main__ import main
    from remecli.search.sharing import SharedIndex

    writer = SharedIndex.writer

    def announced(self, timeout=None):
        print("at the index", file=sys.stderr, flush=True)
        return writer(self, timeout)

    SharedIndex.writer = announced
    sys.exit(main())
    """
)


def _reaches_the_index(process: subprocess.Popen[str]) -> None:
    assert process.stderr is not None
    for line in process.stderr:
        if line.strip() == "at the index":
            return
    raise AssertionError(f"it ended (code {process.wait()}) without asking for the writer lock")


def test_instances_starting_during_another_ones_sync_do_not_rebuild(
    tmp_path: Path, fake_llm
) -> None:
    root = tmp_path / ".reme"
    (root / "memory").mkdir(parents=True, mode=0o700)
    (root / "MEMORY.md").write_text("# MEMORY\n\n- The team ships on Fridays.\n")
    for n in range(NOTES):
        (root / "memory" / f"note-{n}.md").write_text(f"# Note {n}\n\nThe codeword is w{n}x.\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("REME_")}
    first = subprocess.Popen(
        [sys.executable, "-c", PAUSED_SYNC, str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert first.stdin is not None and first.stdout is not None
    assert first.stdout.readline().strip() == "paused"  # half the notes in the store only
    search = [sys.executable, "-c", REACHING, "job", "memory_search", "--query", "w7x"]
    others = [
        subprocess.Popen(
            [*search, *fake_llm_settings(root, fake_llm.base_url)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tmp_path,
        )
        for _ in range(2)
    ]
    for other in others:  # both start (imports) and reach the index while the first one is paused
        _reaches_the_index(other)
    first.stdin.write("\n")
    first.stdin.flush()
    assert first.stdout.readline().strip() == "synced"
    assert first.wait(60) == 0
    for other in others:
        out, err = other.communicate(timeout=240)
        assert other.returncode == 0, err
        assert "note-7.md" in out, out
        assert "rebuilding" not in err and "unreadable" not in err, err
    log = root / "logs" / "remecli.log"
    text = log.read_text() if log.exists() else ""
    assert "rebuilding" not in text and "unreadable" not in text, text
