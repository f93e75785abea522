"""The floor plan holds: each room of `submissions/` says what lives there, the wings (runner,
live) plug into the registry through submissions/wings.py and are never imported by it, and the
pure rooms import no Django."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = ROOT / "submissions"
ROOMS = (
    "entries", "contests", "measures", "setup", "web", "logparse", "tracks", "board", "opendata",
    "live",
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
