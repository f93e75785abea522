"""Verification's pure core (runner/judge/) is one table of the tracks that can be rerun, and it
imports no Django: the worker, the benches and the tests share one judge."""

import subprocess
import sys
from pathlib import Path

from runner.judge import RERUNS, rerun_for
from runner.judge.scaling import MEMORY_RULES
from submissions.setup.entry_settings import SCALED_MEMORY
from submissions.tracks import TRACKS

ROOT = Path(__file__).resolve().parents[3]
JUDGE = ROOT / "runner" / "judge"


def test_every_track_of_the_registry_names_its_rerun_in_the_one_table():
    assert list(RERUNS) == list(TRACKS)
    assert all(rerun_for(workload) is RERUNS[workload] for workload in TRACKS)


def test_a_track_missing_from_the_table_cannot_be_rerun():
    assert rerun_for("toy") is None


def test_the_registry_names_the_memory_settings_a_rerun_scales():
    assert {family: set(rules) for family, rules in MEMORY_RULES.items()} == {
        family: set(names) for family, names in SCALED_MEMORY.items()
    }


def test_the_judge_imports_no_django_nor_the_rest_of_the_runner():
    modules = sorted(
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for path in JUDGE.rglob("*.py")
    )
    code = (
        f"import importlib, sys; [importlib.import_module(m) for m in {modules!r}]; "
        "print(sorted(name for name in sys.modules if name.startswith(('django', "
        "'rest_framework', 'celery', 'runner.', 'submissions.live', 'submissions.models')) "
        "and not name.startswith('runner.judge')))"
    )
    found = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True
    )
    assert found.stdout.strip() == "[]"
