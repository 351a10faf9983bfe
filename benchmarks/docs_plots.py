"""Draw the documentation's benchmark plots from the tables on its pages (no plotting library).

The figures live once, in docs/benchmarks/vector.md's table; this reads that table and writes
SVG bar charts beside it, so a plot can never show other numbers than the page:

    python benchmarks/docs_plots.py            # rewrite docs/benchmarks/*.svg
    python benchmarks/docs_plots.py --check    # exit 1 if a plot differs from its table
"""

from __future__ import annotations

import argparse
import math
import sys
from html import escape
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs" / "benchmarks"
COLOURS = ("#0969da", "#bf8700", "#1a7f37", "#8250df")


def markdown_table(text: str, first_header: str) -> list[dict[str, str]]:
    """The rows of the first table whose first header cell is `first_header`."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == first_header:
            rows = []
            for row in lines[i + 2 :]:
                if not row.startswith("|"):
                    break
                rows.append(
                    dict(
                        zip(
                            cells,
                            (c.strip() for c in row.strip().strip("|").split("|")),
                            strict=True,
                        )
                    )
                )
            return rows
    raise ValueError(f"no table starting with {first_header!r}")


def number(cell: str) -> float:
    return float(cell.replace(",", ""))


def bar_chart(title: str, unit: str, bars: list[tuple[str, float, int]], log: bool) -> str:
    """A horizontal bar chart: (label, value, colour index) per bar, a log or linear axis."""
    label_w, plot_w, bar_h, gap, top = 250, 520, 18, 6, 46
    height = top + len(bars) * (bar_h + gap) + 40
    hi = max(v for _, v, _ in bars)
    if log:
        lo_exp, hi_exp = 0, math.ceil(math.log10(hi))
        ticks = [10.0**e for e in range(lo_exp, hi_exp + 1)]

        def x(v: float) -> float:
            return plot_w * (math.log10(max(v, 1.0)) - lo_exp) / (hi_exp - lo_exp)
    else:
        magnitude = 10 ** math.floor(math.log10(hi))
        step = next(
            m * magnitude for m in (0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 5.0) if hi / (m * magnitude) <= 6
        )
        top_tick = math.ceil(hi / step) * step
        ticks = [step * k for k in range(int(top_tick / step) + 1)]

        def x(v: float) -> float:
            return plot_w * v / top_tick

    width = label_w + plot_w + 90
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" font-family="-apple-system, \'Segoe UI\', Helvetica, Arial, sans-serif" '
        'font-size="12">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="10" y="22" font-size="14" font-weight="bold">{escape(title)}</text>',
    ]
    axis_y = top + len(bars) * (bar_h + gap)
    for t in ticks:
        tx = label_w + x(t)
        out.append(
            f'<line x1="{tx:.1f}" y1="{top - 6}" x2="{tx:.1f}" y2="{axis_y}" stroke="#d0d7de"/>'
        )
        out.append(
            f'<text x="{tx:.1f}" y="{axis_y + 16}" text-anchor="middle" fill="#57606a">{t:,.0f}</text>'
        )
    out.append(
        f'<text x="{label_w + plot_w / 2:.0f}" y="{axis_y + 34}" text-anchor="middle" '
        f'fill="#57606a">{escape(unit)}{" (log scale)" if log else ""}</text>'
    )
    for i, (label, value, colour) in enumerate(bars):
        y = top + i * (bar_h + gap)
        w = max(x(value), 1.0)
        out.append(
            f'<text x="{label_w - 8}" y="{y + bar_h - 5}" text-anchor="end">{escape(label)}</text>'
        )
        out.append(
            f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h}" '
            f'fill="{COLOURS[colour]}"/>'
        )
        out.append(f'<text x="{label_w + w + 6:.1f}" y="{y + bar_h - 5}">{value:,g}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def vector_plots() -> dict[str, str]:
    rows = markdown_table((DOCS / "vector.md").read_text(encoding="utf-8"), "backend")
    backends = list(dict.fromkeys(r["backend"].split(" (")[0] for r in rows))

    def colour(row: dict[str, str]) -> int:
        return backends.index(row["backend"].split(" (")[0]) % len(COLOURS)

    retrieve = []
    for r in rows:
        if r["memories"] == "10,000":
            name = r["backend"].split(" (")[0]
            retrieve.append(
                (f"{name}, vector p50", number(r["retrieve vector p50 (ms)"]), colour(r))
            )
            retrieve.append(
                (f"{name}, hybrid p50", number(r["retrieve hybrid p50 (ms)"]), colour(r))
            )
    bulk = [
        (
            f"{r['backend'].split(' (')[0]}, {r['memories']} memories",
            number(r["bulk insert (memories/s)"]),
            colour(r),
        )
        for r in rows
    ]
    return {
        "vector-retrieve.svg": bar_chart(
            "Vector memory, 10,000 memories: retrieve latency by backend", "ms", retrieve, log=True
        ),
        "vector-bulk.svg": bar_chart(
            "Vector memory: bulk insert through add_memories",
            "memories per second",
            bulk,
            log=False,
        ),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a plot is out of date")
    args = parser.parse_args()
    stale = []
    for name, svg in vector_plots().items():
        path = DOCS / name
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != svg:
                stale.append(name)
        else:
            path.write_text(svg, encoding="utf-8")
            print(f"wrote {path}")
    if stale:
        print(f"out of date (run python benchmarks/docs_plots.py): {', '.join(stale)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
