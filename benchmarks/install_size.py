"""Install size: what each of remecli's dependencies costs on disk, with what it pulls in.

Run with the Python of an environment where remecli is installed (a fresh venv after
`pip install .`). For every distribution the size is the sum of the files its RECORD lists, as
they are on disk. Each direct dependency of remecli is charged its own size plus everything it
pulls in that nothing else needs ("alone"); what two or more direct dependencies need is shown
once, as "shared". Extras are not followed (pip installs none of them for `pip install .`).

Reproduce:
  python3 -m venv /tmp/v && /tmp/v/bin/pip install --no-cache-dir . \
    && /tmp/v/bin/python benchmarks/install_size.py [--top 15] [--tree agentscope]
"""

from __future__ import annotations

import argparse
import importlib.metadata as metadata
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from packaging.requirements import Requirement


def canonical(name: str) -> str:
    """PEP 503 name: lower case, runs of -_. as one dash."""
    return re.sub(r"[-_.]+", "-", name).lower()


def installed() -> dict[str, metadata.Distribution]:
    """Every distribution of this environment by canonical name."""
    found: dict[str, metadata.Distribution] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            found.setdefault(canonical(name), dist)
    return found


def disk_size(dist: metadata.Distribution) -> int:
    """Bytes of the files this distribution installed (its RECORD), as they are now."""
    total = 0
    for file in dist.files or ():
        path = Path(str(dist.locate_file(file)))
        try:
            if path.is_file():
                total += path.stat().st_size
        except OSError:
            continue
    return total


def requirements(dist: metadata.Distribution, dists: dict[str, metadata.Distribution]) -> list[str]:
    """The installed distributions `dist` requires (markers evaluated, extras not followed)."""
    names: list[str] = []
    for text in dist.requires or ():
        req = Requirement(text)
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = canonical(req.name)
        if name in dists:
            names.append(name)
    return names


def closure(roots: Iterable[str], graph: dict[str, list[str]]) -> set[str]:
    """Every distribution reachable from `roots`, roots included."""
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        stack.extend(graph.get(name, ()))
    return seen


def mb(size: int) -> str:
    return f"{size / 1e6:8.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--top", type=int, default=15, help="rows of each table")
    parser.add_argument("--tree", default="", help="also list what this dependency pulls alone")
    args = parser.parse_args()

    dists = installed()
    if "remecli" not in dists:
        print("remecli is not installed in this environment:", sys.executable, file=sys.stderr)
        return 2
    graph = {name: requirements(dist, dists) for name, dist in dists.items()}
    sizes = {name: disk_size(dist) for name, dist in dists.items()}
    direct = sorted(set(graph["remecli"]))
    everything = closure(["remecli"], graph)

    reach = {dep: closure([dep], graph) for dep in direct}
    owners: dict[str, list[str]] = {}
    for dep, names in reach.items():
        for name in names:
            owners.setdefault(name, []).append(dep)
    alone = {
        dep: sum(sizes[n] for n in names if owners[n] == [dep]) for dep, names in reach.items()
    }
    shared = sum(sizes[n] for n, deps in owners.items() if len(deps) > 1)
    total = sum(sizes[n] for n in everything)

    print(f"environment: {sys.prefix}")
    print(f"remecli and its {len(everything) - 1} dependencies: {total / 1e6:.1f} MB on disk")
    print(f"(the venv's pip and setuptools are not counted; shared between deps: {mb(shared)} MB)")
    print()
    print("   MB alone  packages  direct dependency (and what only it pulls in)")
    for dep in sorted(direct, key=lambda d: -alone[d])[: args.top]:
        only = [n for n in reach[dep] if owners[n] == [dep]]
        print(f"{mb(alone[dep])}  {len(only):8d}  {dep}")
    print()
    print("   MB  largest single distributions")
    for name in sorted(everything, key=lambda n: -sizes[n])[: args.top]:
        print(f"{mb(sizes[name])}  {name}  (needed by: {', '.join(owners.get(name, ['remecli']))})")
    if args.tree:
        dep = canonical(args.tree)
        only = sorted(
            (n for n in reach.get(dep, ()) if owners[n] == [dep]), key=lambda n: -sizes[n]
        )
        print()
        print(f"   MB  pulled in by {dep} alone")
        for name in only[: args.top * 3]:
            print(f"{mb(sizes[name])}  {name}")
    print()
    print("reproduce: python benchmarks/install_size.py --top", args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
