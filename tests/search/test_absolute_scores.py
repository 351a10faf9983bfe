"""Scores that mean something (issue 38): nonsense finds nothing, a score does not depend on
what else the memory holds, and one line range is listed once."""

from __future__ import annotations

from pathlib import Path

import pytest

from remecli.search import MemoryIndex
from tests.search.fake_embedder import CharNgramEmbedder
from tests.search.helpers import settings

NOTES = {
    "MEMORY.md": "# Preferences\n- The user prefers Python 3.12 and uses uv for packaging.\n"
    "- Coffee: a flat white every morning, oat milk, no sugar.\n",
    "memory/2025-01-02.md": "# 2025-01-02\n\n## Infrastructure\nWe discussed the Kubernetes "
    "migration plan and the nightly database backup schedule.\n\n## Cooking\nTried a new "
    "sourdough recipe; the crumb was too dense.\n",
    "memory/2025-01-05.md": "# 2025-01-05\n\n## Trip\nBooked flights to Lisbon for the "
    "conference in June.\n\n## Reading\nFinished a book on tracer bullets and broken windows.\n",
}
MORE = {
    "memory/2025-02-01.md": "# 2025-02-01\n\n## Garden\nPlanted tomatoes and basil by the "
    "fence; the soil needs more compost.\n",
    "memory/2025-02-03.md": "# 2025-02-03\n\n## Car\nThe mechanic replaced the brake pads on "
    "the old Volvo.\n",
    "memory/2025-02-05.md": "# 2025-02-05\n\n## Bakery\nWorked a shift at the bakery, shaping "
    "baguettes before dawn.\n",  # closer to "baking bread" than the sourdough, no shared word
}


def write(root: Path, notes: dict[str, str]) -> None:
    for rel, text in notes.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


@pytest.mark.local_model
async def test_nonsense_finds_nothing_and_a_score_does_not_depend_on_the_rest(
    tmp_path: Path,
) -> None:
    """Before: five vector-only hits for gibberish, the first at 1.0; a paraphrase's hit read
    1.0, then less once a closer note was written (min-max among the candidates)."""
    write(tmp_path, NOTES)
    index = MemoryIndex.open(tmp_path, settings(embedding={"backend": "local"}))
    try:
        await index.sync()
        for nonsense in ("xqzvbnm flurbo", "zzzqqq nothing"):
            assert await index.search(nonsense, 5, 0.0) == [], nonsense
        [hit, *_] = await index.search("baking bread", 5, 0.0)  # no shared word: vectors only
        assert hit.path == "memory/2025-01-02.md" and hit.signals == ["vector"]
        assert hit.heading_path.endswith("Cooking") and hit.score > 0.0
        write(tmp_path, MORE)
        await index.sync()
        assert await index.search("xqzvbnm flurbo", 5, 0.0) == []
        again = await index.search("baking bread", 5, 0.0)
        assert again[0].path == "memory/2025-02-05.md" and again[0].signals == ["vector"]
        [same] = [h for h in again if (h.path, h.start_line) == (hit.path, hit.start_line)]
        assert same.score == pytest.approx(hit.score, abs=1e-6)
    finally:
        index.close()


async def test_a_line_range_is_listed_once(tmp_path: Path) -> None:
    """A paragraph written as one long line is cut into several chunks of the same range;
    before, each piece that matched was a hit of its own ("memory/long.md:3-3" twice)."""
    pieces = [f"Part {n}: the lighthouse keeper wrote about storm number {n}." for n in range(60)]
    write(tmp_path, {"memory/long.md": "# Log\n\n" + " ".join(pieces) + "\n"})
    index = MemoryIndex.open(tmp_path, settings(), embedder=CharNgramEmbedder())
    try:
        await index.sync()
        chunks = index.store.chunks_of("memory/long.md")
        assert sum(s.chunk.start_line == s.chunk.end_line == 3 for s in chunks) > 1
        hits = await index.search("lighthouse keeper storm", 10, 0.0)
        ranges = [(h.path, h.start_line, h.end_line) for h in hits]
        assert ("memory/long.md", 3, 3) in ranges
        assert len(ranges) == len(set(ranges))
    finally:
        index.close()
