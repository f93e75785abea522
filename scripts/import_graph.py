"""Draw the import structure from the code: the circles among modules and the arrows between
rooms, read with the standard library's `ast` (every import, function-local ones included) and
the C benchmark's `#include "..."` lines. Anyone can rerun it:

    python scripts/import_graph.py            # circles, then room -> room arrows
    python scripts/import_graph.py --rooms    # the arrows only
    python scripts/import_graph.py --by-room  # circles, then one line a room
    python scripts/import_graph.py --module runner.verdicts   # what one module reaches
    python scripts/import_graph.py --calls runner.tasks:run_verification   # a call path
    python scripts/import_graph.py --refresh docs/structure.md   # its drawings made again

A call path is drawn from the calls a function's body makes to functions of the project it can
name statically (a name it defines or imports, a method of its own class, `module.function`, a
task sent by its name); a call through a table or an object (`RERUNS[workload].judge(...)`) is
not followed: start another drawing there.

A room is a folder of `submissions/` (`submissions.board`), the wing `runner` (its pure
verification package `runner.judge` apart), or a top-level package (`bench`, `testing`, ...).
Tests are left out: they may import anything they test.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import re
import signal
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
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


def room_lines(arrows: Counter) -> list[str]:
    """One line a room: the rooms it imports, each with its count of imports."""
    targets: dict[str, list[str]] = defaultdict(list)
    for (source, target), count in sorted(arrows.items()):
        targets[source].append(f"{target} ({count})")
    return [f"  {source} -> {', '.join(reached)}" for source, reached in sorted(targets.items())]


def reach(graph: dict[str, set[str]], start: str) -> list[str]:
    seen, todo = {start}, [start]
    while todo:
        for target in graph.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return sorted(seen - {start})


@dataclass
class ModuleSymbols:
    """What a call in a module can name: its functions and methods (`f`, `Class.method`), its
    classes, the names it imports (local name -> dotted target) and its string constants."""

    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    classes: set[str] = field(default_factory=set)
    imports: dict[str, str] = field(default_factory=dict)
    constants: dict[str, str] = field(default_factory=dict)


def module_symbols(source: str, module: str, is_package: bool) -> ModuleSymbols:
    symbols = ModuleSymbols()
    package = module if is_package else module.rpartition(".")[0]
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            symbols.functions[node.name] = node
        elif isinstance(node, ast.ClassDef):
            symbols.classes.add(node.name)
            for member in node.body:
                if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
                    symbols.functions[f"{node.name}.{member.name}"] = member
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            names = [target.id for target in node.targets if isinstance(target, ast.Name)]
            if isinstance(node.value.value, str):
                symbols.constants.update(dict.fromkeys(names, node.value.value))
    for node in ast.walk(tree):  # function-local imports name things too
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.partition(".")[0]
                symbols.imports[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                symbols.imports[alias.asname or alias.name] = f"{base}.{alias.name}"
    return symbols


class CallGraph:
    """Calls between the project's functions, read from sources ({module: (text, is_package)})."""

    def __init__(self, sources: dict[str, tuple[str, bool]]):
        self.sources = sources
        self._symbols: dict[str, ModuleSymbols] = {}

    def symbols(self, module: str) -> ModuleSymbols:
        if module not in self._symbols:
            text, is_package = self.sources[module]
            self._symbols[module] = module_symbols(text, module, is_package)
        return self._symbols[module]

    def resolve(self, dotted: str, hops: int = 5) -> str | None:
        """`module:function` for a dotted name, through re-exports (`from .x import f`)."""
        module, _, name = dotted.rpartition(".")
        if module not in self.sources or hops == 0:
            return None
        symbols = self.symbols(module)
        if name in symbols.functions:
            return f"{module}:{name}"
        if name in symbols.imports:
            return self.resolve(symbols.imports[name], hops - 1)
        return None

    def constant(self, module: str, node: ast.expr) -> str | None:
        """The string a name or `module.NAME` stands for, if it is a constant of the project."""
        symbols = self.symbols(module)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in symbols.constants:
                return symbols.constants[node.id]
            owner, _, name = symbols.imports.get(node.id, "").rpartition(".")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            owner, name = symbols.imports.get(node.value.id, ""), node.attr
        else:
            return None
        return self.symbols(owner).constants.get(name) if owner in self.sources else None

    def callee(self, module: str, owner_class: str, node: ast.expr) -> str | None:
        symbols = self.symbols(module)
        if isinstance(node, ast.Name):
            if node.id in symbols.functions:
                return f"{module}:{node.id}"
            return self.resolve(symbols.imports[node.id]) if node.id in symbols.imports else None
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
            return None
        holder, attr = node.value.id, node.attr
        if holder in ("self", "cls") and f"{owner_class}.{attr}" in symbols.functions:
            return f"{module}:{owner_class}.{attr}"
        if holder in symbols.classes and f"{holder}.{attr}" in symbols.functions:
            return f"{module}:{holder}.{attr}"
        if holder in symbols.imports:
            return self.resolve(f"{symbols.imports[holder]}.{attr}")
        return None

    def calls(self, function: str) -> list[tuple[str, str]]:
        """(`module:function`, how) for each project function `function` calls, in the order
        of the source; how is "" for a call and "by name" for a task sent by its name."""
        module, _, qualname = function.partition(":")
        node = self.symbols(module).functions[qualname]
        owner_class = qualname.rpartition(".")[0]
        found: list[tuple[str, str]] = []
        calls = [call for call in ast.walk(node) if isinstance(call, ast.Call)]
        for call in sorted(calls, key=lambda call: (call.lineno, call.col_offset)):
            target = self.callee(module, owner_class, call.func)
            if target and target != function:
                found.append((target, ""))
            for argument in call.args:
                named = self.constant(module, argument)
                task = self.resolve(named) if named and "." in named else None
                if task:
                    found.append((task, "by name"))
        unique = dict.fromkeys(found)
        return list(unique)


def call_path(graph: CallGraph, start: str, depth: int, towards: tuple[str, ...] = ()) -> list[str]:
    """The calls from `start` drawn as a tree, `depth` calls deep; a function drawn once is
    named again with `(above)` instead of its calls. With `towards` (prefixes of
    `module:function`), only the calls on a way to one of them are drawn."""
    lines = [start]
    drawn = {start}
    leads: dict[tuple[str, int], bool] = {}

    def on_the_way(function: str, left: int) -> bool:
        if not towards or function.startswith(towards):
            return True
        if left == 0 or (function, left) in leads:
            return leads.get((function, left), False)
        leads[function, left] = False  # a circle leads nowhere new
        found = any(on_the_way(target, left - 1) for target, _ in graph.calls(function))
        leads[function, left] = found
        return found

    def draw(function: str, indent: str, left: int) -> None:
        for target, how in graph.calls(function):
            if not on_the_way(target, left - 1):
                continue
            label = f"{target}  [{how}]" if how else target
            if target in drawn:
                lines.append(f"{indent}- {label} (above)")
                continue
            drawn.add(target)
            lines.append(f"{indent}- {label}")
            if left > 1:
                draw(target, indent + "    ", left - 1)

    draw(start, "    ", depth)
    return lines


def project_sources() -> dict[str, tuple[str, bool]]:
    return {
        module_name(path): (path.read_text(), path.name == "__init__.py") for path in python_files()
    }


# A drawing in a document: its command, then what the command printed.
DRAWING = re.compile(r"```text\n\$ (python scripts/import_graph\.py[^\n]*)\n(.*?)```", re.S)


def drawings(text: str) -> list[tuple[str, str]]:
    """(command, drawing) for each drawing of a document."""
    return DRAWING.findall(text)


def refreshed(text: str, draw) -> str:
    """The document with each drawing made again: `draw(arguments)` prints it."""
    return DRAWING.sub(
        lambda found: f"```text\n$ {found[1]}\n{draw(found[1].split()[2:])}```", text
    )


def draw_again(arguments: list[str]) -> str:
    """What the script prints with these arguments."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        main(arguments)
    return printed.getvalue()


def main(arguments: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", action="store_true", help="print the room arrows only")
    parser.add_argument("--by-room", action="store_true", help="the room arrows as one line a room")
    parser.add_argument("--module", help="print every module this one reaches")
    parser.add_argument(
        "--calls", action="append", metavar="MODULE:FUNCTION", help="draw the calls from it"
    )
    parser.add_argument("--depth", type=int, default=4, help="how many calls deep (--calls)")
    parser.add_argument(
        "--towards",
        action="append",
        default=[],
        metavar="PREFIX",
        help="draw only the calls on a way to a function starting so (--calls)",
    )
    parser.add_argument(
        "--refresh", metavar="DOCUMENT", help="draw again every drawing of a document, in place"
    )
    args = parser.parse_args(arguments)
    if args.refresh:
        document = Path(args.refresh)
        document.write_text(refreshed(document.read_text(), draw_again))
        return 0
    if args.calls:
        graph_of_calls = CallGraph(project_sources())
        for start in args.calls:
            drawing = call_path(graph_of_calls, start, args.depth, tuple(args.towards))
            print("\n".join(drawing))
        return 0
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
    if args.by_room:
        print("\n".join(room_lines(arrows)))
        return 0
    for (source, target), count in sorted(arrows.items()):
        print(f"  {source} -> {target} ({count})")
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the drawing quietly
    raise SystemExit(main())
