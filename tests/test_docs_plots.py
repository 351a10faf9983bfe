"""The documentation's plots show the figures of the tables beside them (benchmarks/docs_plots.py)."""

from __future__ import annotations

from pathlib import Path

from benchmarks import docs_plots


def test_committed_plots_match_the_vector_table() -> None:
    for name, svg in docs_plots.vector_plots().items():
        assert (docs_plots.DOCS / name).read_text(encoding="utf-8") == svg, (
            f"docs/benchmarks/{name} is out of date: run python benchmarks/docs_plots.py"
        )


def test_a_changed_figure_changes_the_plot(tmp_path: Path, monkeypatch) -> None:
    page = (docs_plots.DOCS / "vector.md").read_text(encoding="utf-8")
    assert "| local | 10,000 | 1,081 |" in page
    (tmp_path / "vector.md").write_text(
        page.replace("| local | 10,000 | 1,081 |", "| local | 10,000 | 999 |")
    )
    monkeypatch.setattr(docs_plots, "DOCS", tmp_path)
    bulk = docs_plots.vector_plots()["vector-bulk.svg"]
    assert ">999</text>" in bulk and ">1,081</text>" not in bulk
