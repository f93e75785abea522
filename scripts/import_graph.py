"""Draw the import structure from the code: the circles among modules and the arrows between
rooms, read with the standard library's `ast` (every import, function-local ones included) and
the C benchmark's `#include "..."` lines. Anyone can rerun it:

    python scripts/import_graph.py            # circles, then room -> room arrows
    python scripts/import_graph.py --rooms    # the arrows only
    python scripts/import_graph.py --module runner.verdicts   # what one module reaches

A room is a folder of `submissions/` (`submissions.board`), the wing `runner` (its pure
verification package `runner.judge` apart), or a top-level package (`bench`, `testing`, ...).
Tests are left out: they may import anything they test.
"""

from __future__ import annotations

import argparse
import ast
import re
import signal
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIPPED = {".venv", "node_modules", "migrations", "var", "static", "staticfiles", "__pycache__"}
C_SOURCES = ROOT / "runner" / "iibench" / "src"


def python_files() -> list[Path]:
    return sorted(
        path
        for path in ROOT.rglob("*.py")
        if not SKIPPED & set(path.relative_to(ROOT).parts)
        and "tests" not in path.relative_to(ROOT).parts
        and not path.name.startswith("test_")
        and path.name != "conftest.py"
    )


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def imported_names(path: Path, module: str, known: set[str]) -> set[str]:
    """Every module `path` imports, absolute, relative ones resolved against `module`."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            # `from package import module` reaches the module; only names that are not
            # modules of their own are read from the package.
            submodules = {f"{base}.{alias.name}" for alias in node.names} & known
            names.update(submodules)
            if len(submodules) < len(node.names):
                names.add(base)
    return names


def python_graph() -> dict[str, set[str]]:
    files = {module_name(path): path for path in python_files()}
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        targets = set()
        for name in imported_names(path, module, set(files)):
            while name and name not in files:
                name = name.rpartition(".")[0]
            if name and name != module:
                targets.add(name)
        graph[module] = targets
    return graph


def c_graph() -> dict[str, set[str]]:
    """The C benchmark's units (a .c with its .h) and the units each includes."""
    graph: dict[str, set[str]] = defaultdict(set)
    if not C_SOURCES.is_dir():
        return {}
    for path in sorted(C_SOURCES.glob("*.[ch]")):
        unit = f"c:{path.stem}"
        graph.setdefault(unit, set())
        for included in re.findall(r'^#include "([^"]+)\.h"', path.read_text(), re.M):
            if included != path.stem:
                graph[unit].add(f"c:{included}")
    return dict(graph)


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def room(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "submissions" and len(parts) > 2:
        return ".".join(parts[:2])
    if parts[0] == "submissions":
        return module  # the top of the registry: models, wings, signals, ...
    if parts[0] == "runner" and len(parts) > 1 and parts[1] in ("judge", "iibench"):
        return "runner." + parts[1]
    return parts[0]


def room_arrows(graph: dict[str, set[str]]) -> Counter:
    arrows: Counter = Counter()
    for module, targets in graph.items():
        for target in targets:
            if room(module) != room(target):
                arrows[room(module), room(target)] += 1
    return arrows


def reach(graph: dict[str, set[str]], start: str) -> list[str]:
    seen, todo = {start}, [start]
    while todo:
        for target in graph.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return sorted(seen - {start})


def main() -> int:
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the drawing quietly
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", action="store_true", help="print the room arrows only")
    parser.add_argument("--module", help="print every module this one reaches")
    args = parser.parse_args()
    graph = python_graph()
    if args.module:
        print("\n".join(reach(graph, args.module)))
        return 0
    if not args.rooms:
        found = circles(graph) + circles(c_graph())
        print(f"circles: {len(found)}")
        for members in found:
            print("  " + " <-> ".join(members))
    arrows = room_arrows(graph)
    print(f"room arrows: {len(arrows)}")
    for (source, target), count in sorted(arrows.items()):
        print(f"  {source} -> {target} ({count})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
