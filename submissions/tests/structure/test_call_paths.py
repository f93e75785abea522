"""The call paths scripts/import_graph.py draws (docs/structure.md): read from the source alone,
a call reached through an import, a re-export, a method of the function's own class, a module's
function or a task sent by its name; a call through a table is not followed; `towards` keeps
only the ways to the functions named. And the drawings in docs/structure.md are the script's."""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "import_graph.py"


def load_script():
    spec = importlib.util.spec_from_file_location("import_graph", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("import_graph", module)
    spec.loader.exec_module(module)
    return module


graph_script = load_script()

SOURCES = {
    "shop": ("", True),
    "shop.views": (
        "from shop import services\n"
        "from shop.prices import price_of\n"
        "class Basket:\n"
        "    def post(self):\n"
        "        self._store()\n"
        "        return price_of(1)\n"
        "    def _store(self):\n"
        "        services.order_create(items=[])\n",
        False,
    ),
    "shop.prices": ("from shop.pricing.rules import price_of\n", False),
    "shop.pricing": ("", True),
    "shop.pricing.rules": ("def price_of(item):\n    return round(item)\n", False),
    "shop.services": (
        "from shop.tables import HANDLERS\n"
        "SHIP = 'shop.tasks.ship'\n"
        "def order_create(*, items):\n"
        "    _check(items)\n"
        "    HANDLERS['card'].charge(items)\n"
        "    send(SHIP, items)\n"
        "def _check(items):\n"
        "    return len(items)\n"
        "def send(name, items):\n"
        "    return name\n",
        False,
    ),
    "shop.tables": ("HANDLERS = {}\n", False),
    "shop.tasks": (
        "from shop import services\ndef ship(items):\n    services._check(items)\n",
        False,
    ),
}


def drawing(start, depth=5, towards=()):
    return graph_script.call_path(graph_script.CallGraph(SOURCES), start, depth, towards)


def test_it_follows_methods_imports_reexports_modules_and_tasks_sent_by_name():
    assert drawing("shop.views:Basket.post") == [
        "shop.views:Basket.post",
        "    - shop.views:Basket._store",
        "        - shop.services:order_create",
        "            - shop.services:_check",
        "            - shop.services:send",
        "            - shop.tasks:ship  [by name]",
        "                - shop.services:_check (above)",
        "    - shop.pricing.rules:price_of",
    ]


def test_a_call_through_a_table_is_not_followed():
    called = [
        target for target, _ in graph_script.CallGraph(SOURCES).calls("shop.services:order_create")
    ]
    assert called == ["shop.services:_check", "shop.services:send", "shop.tasks:ship"]


def test_towards_keeps_only_the_ways_to_the_functions_named():
    assert drawing("shop.views:Basket.post", towards=("shop.tasks:ship",)) == [
        "shop.views:Basket.post",
        "    - shop.views:Basket._store",
        "        - shop.services:order_create",
        "            - shop.tasks:ship  [by name]",
    ]


def test_depth_bounds_the_drawing():
    assert drawing("shop.views:Basket.post", depth=1) == [
        "shop.views:Basket.post",
        "    - shop.views:Basket._store",
        "    - shop.pricing.rules:price_of",
    ]


def test_refresh_draws_each_drawing_of_a_document_again():
    document = (
        "Intro.\n\n```text\n$ python scripts/import_graph.py --calls a:b --depth 2\nold\n```\n"
        "Between.\n\n```text\n$ python scripts/import_graph.py --by-room\nolder\n```\n"
    )
    asked = []

    def draw(arguments):
        asked.append(arguments)
        return f"new {len(asked)}\n"

    assert graph_script.refreshed(document, draw) == (
        "Intro.\n\n```text\n$ python scripts/import_graph.py --calls a:b --depth 2\nnew 1\n```\n"
        "Between.\n\n```text\n$ python scripts/import_graph.py --by-room\nnew 2\n```\n"
    )
    assert asked == [["--calls", "a:b", "--depth", "2"], ["--by-room"]]


def test_the_drawings_in_the_structure_doc_are_the_scripts_own():
    """Each drawing in docs/structure.md is under the command that made it; run again, the
    command draws it exactly. When the code's paths change:
    python scripts/import_graph.py --refresh docs/structure.md"""
    text = (ROOT / "docs" / "structure.md").read_text()
    found = graph_script.drawings(text)
    assert len(found) >= 5
    for command, drawn in found:
        again = graph_script.draw_again(command.split()[2:])
        assert again == drawn, f"{command}: run --refresh docs/structure.md"
