"""The floor plan holds: each room of `submissions/` says what lives there, the wings (runner,
live) plug into the registry through submissions/wings.py and are never imported by it, the
pure rooms import no Django, and every import of a room (function-local ones included) and every
ORM lookup into a wing's tables keeps to the room table in docs/CONVENTIONS.md, read as data."""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
REGISTRY = ROOT / "submissions"
ROOMS = (
    "entries", "contests", "measures", "setup", "web", "logparse", "tracks", "board", "opendata",
    "caches", "live",
)  # fmt: skip
PURE = ("measures", "logparse", "tracks")


def imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def registry_modules(*, outside: str = "") -> list[Path]:
    return [
        path
        for path in REGISTRY.rglob("*.py")
        if "tests" not in path.parts
        and not (outside and outside in path.relative_to(REGISTRY).parts)
    ]


@pytest.mark.parametrize("room", ROOMS)
def test_each_room_says_what_lives_there_and_what_it_may_import(room):
    docstring = ast.get_docstring(ast.parse((REGISTRY / room / "__init__.py").read_text()))
    assert docstring and "import" in docstring, f"submissions/{room}/__init__.py"


def test_no_module_of_the_registry_outside_live_imports_live_or_the_runner():
    offending = {
        str(path.relative_to(ROOT)): sorted(
            name
            for name in imported(path)
            if name.split(".")[0] == "runner" or name.startswith("submissions.live")
        )
        for path in registry_modules(outside="live")
    }
    assert {path: names for path, names in offending.items() if names} == {}


def test_the_top_of_the_registry_holds_only_django_s_own_files_and_the_wings_door():
    top = sorted(path.stem for path in REGISTRY.glob("*.py"))
    assert top == ["__init__", "admin", "apps", "models", "signals", "tasks", "wings"]


@pytest.mark.parametrize("room", PURE)
def test_the_pure_rooms_import_no_django(room):
    modules = [
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for path in (REGISTRY / room).rglob("*.py")
        if "tests" not in path.parts
    ]
    code = (
        f"import importlib, sys; [importlib.import_module(m) for m in {modules!r}]; "
        "sys.exit(any(name.startswith(('django', 'runner', 'rest_framework')) "
        "for name in sys.modules))"
    )
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=False).returncode == 0


# --- the room table of docs/CONVENTIONS.md, read as data ------------------------------------

CONVENTIONS = ROOT / "docs" / "CONVENTIONS.md"
TABLE_ROW = re.compile(r"^\| `(\w+)/` \| (.*) \| (.*) \|$")
# The registry's own top files (submissions/*.py) a room may name in its imports.
TOP = ("models", "wings", "signals", "tasks", "admin", "apps")
# A lookup through a wing's relation (submissions.live's LiveRun.submission, runner's
# VerificationRun.submission and Contest.live_runs): the registry reads the wings through
# wings.py, never their tables.
WING_LOOKUP = re.compile(r"\b(live_runs?|verification_runs|witness_tokens)__\w+")
# Imports and lookups against the table that are known and not yet moved, "<path> ->
# name" (none since issue 41): the test fails on any other, and on an entry here that no longer
# happens (remove it then).
KNOWN: set[str] = set()


def room_table() -> dict[str, tuple[str, str]]:
    """{room: (what lives there, what it may import)}, as the table's rows say them."""
    rows = {}
    for line in CONVENTIONS.read_text().splitlines():
        found = TABLE_ROW.match(line)
        if found:
            rows[found[1]] = (found[2], found[3])
    return rows


def may_import(cell: str) -> set[str]:
    """The names a room may import: the cell's backticked rooms and modules before its
    "never", "the models", and "*" for every room."""
    allowed = cell.split("; never")[0].split("; plugs")[0]
    names = {name.removesuffix(".py") for name in re.findall(r"`([\w.]+)`", allowed)}
    if "the models" in allowed:
        names.add("models")
    if "every room" in allowed:
        names.add("*")
    return names


def every_import(path: Path, module: str = "") -> set[str]:
    """Every module `path` (the module `module`, its name from its path by default) imports,
    anywhere in it, relative imports made absolute, and each name of a `from package import
    name` as package.name (it may be a module)."""
    module = module or ".".join(path.relative_to(ROOT).with_suffix("").parts)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def _registry_name(imported: str, rooms: set[str]) -> str | None:
    """ "room" or "room.module" (or a top file) that an import reaches; None outside."""
    parts = imported.split(".")
    if parts[0] != "submissions" or len(parts) < 2:
        return None
    if parts[1] in rooms:
        return ".".join(parts[1:3])
    return parts[1] if parts[1] in TOP else None


def _allowed(name: str, room: str, allowed: set[str], rooms: set[str]) -> bool:
    first = name.split(".")[0]
    if first == room or name in allowed or first in allowed:
        return True
    # "every room": all of the registry but the live wing, which only `live` is.
    return "*" in allowed and first != "live"


def against_the_table() -> set[str]:
    table = room_table()
    rooms = set(table)
    found = set()
    for room, (_, cell) in table.items():
        allowed = may_import(cell)
        for path in (REGISTRY / room).rglob("*.py"):
            if "tests" in path.parts or "migrations" in path.parts:
                continue
            where = str(path.relative_to(ROOT))
            for imported in every_import(path):
                name = _registry_name(imported, rooms)
                if name is not None and not _allowed(name, room, allowed, rooms):
                    found.add(f"{where} -> {name}")
            if room != "live":
                found.update(
                    f"{where} -> {lookup[0]}" for lookup in WING_LOOKUP.finditer(path.read_text())
                )
    return found


def test_the_room_table_names_every_room():
    assert sorted(room_table()) == sorted(ROOMS)


def test_every_import_of_a_room_is_one_the_room_table_allows():
    found = against_the_table()
    assert sorted(found - KNOWN) == [], "imports against docs/CONVENTIONS.md's room table"
    assert sorted(KNOWN - found) == [], "no longer found: remove them from KNOWN"


def test_the_table_reader_catches_a_function_local_import_and_a_wing_lookup(tmp_path):
    module = tmp_path / "probe.py"
    module.write_text(
        "def f():\n    from submissions.web import views\n    return 'live_run__witnessed'\n"
    )
    assert "submissions.web.views" in every_import(module, "submissions.board.probe")
    assert WING_LOOKUP.search(module.read_text())[0] == "live_run__witnessed"
    assert not _allowed("web.views", "board", may_import(room_table()["board"][1]), set())


@pytest.mark.parametrize("room", ROOMS)
def test_the_room_table_names_every_module_of_the_room(room):
    lives = room_table()[room][0]
    named = set(re.findall(r"`([\w/]+)(?:\.py|/)`", lives))
    modules = {
        path.stem if path.suffix == ".py" else path.name
        for path in (REGISTRY / room).iterdir()
        if (path.suffix == ".py" and path.stem != "__init__")
        or (
            path.is_dir()
            and (path / "__init__.py").exists()
            and path.name not in ("tests", "migrations")
        )
    }
    assert sorted(modules - named) == [], f"modules of {room}/ missing from the room table"


def _paragraph(starting: str) -> str:
    return next(part for part in CONVENTIONS.read_text().split("\n\n") if starting in part)


def _modules(folder: Path) -> set[str]:
    return {
        path.name for path in folder.glob("*.py") if path.name not in ("__init__.py", "conftest.py")
    }


def test_conventions_names_every_module_of_the_runner_and_of_django_s_packages():
    """The rooms' rows name their modules (above); the runner's paragraph names every module of
    runner/, runner/judge/ and its commands, the floor plan's opening every module of the
    registry's templatetags/ and management commands."""
    runner_said = set(re.findall(r"`(\w+\.py)`", _paragraph("`runner/` is the other wing")))
    runner = ROOT / "runner"
    runner_modules = (
        _modules(runner) | _modules(runner / "judge") | _modules(runner / "management/commands")
    )
    assert sorted(runner_modules - runner_said) == [], "runner modules missing from CONVENTIONS"
    registry_said = set(re.findall(r"`(\w+\.py)`", _paragraph("is one Django app")))
    django_packages = _modules(REGISTRY / "templatetags") | _modules(
        REGISTRY / "management/commands"
    )
    assert sorted(django_packages - registry_said) == [], "missing from the floor plan's opening"


TEST_FOLDERS = ("submissions/tests", "submissions/live/tests", "runner/tests", "witness/tests")


def test_no_test_module_imports_another_test_module():
    """What more than one test file needs lives in testing/ (docs/CONVENTIONS.md)."""
    found = []
    for folder in TEST_FOLDERS:
        for path in (ROOT / folder).rglob("*.py"):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found.extend(
                f"{path.relative_to(ROOT)} -> {name}"
                for name in every_import(path, module)
                if re.search(r"\.tests(\.\w+)*\.(test_\w+|conftest)\b", name)
            )
    assert sorted(found) == []
