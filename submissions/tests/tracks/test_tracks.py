"""The track registry: one entry per workload, its rule parameters as organizers set them, and
logs holding several C benchmark runs."""

import importlib.util
import io
import re

import pytest
from django.core.exceptions import ValidationError

from submissions import tracks
from submissions.entries import services
from submissions.logparse import LogError, key_type_log, parse_log_runs
from submissions.models import Workload
from testing.factories import ContestFactory
from testing.logs import c_log, c_pk_run


def test_every_workload_has_a_track_and_every_rule_id_is_unique_within_it():
    # Workload names the shipped tracks for code that picks one by name; TRACKS may hold more.
    assert set(Workload.values) <= set(tracks.TRACKS)
    for track in tracks.TRACKS.values():
        ids = [rule.id for rule in track.rule_list()]
        assert len(ids) == len(set(ids)), track.workload


def test_a_contests_track_rules_fill_in_the_defaults():
    fifo = tracks.track_for("fifo")

    assert tracks.track_rules(fifo, {}) == {"delete_after": 250_000_000, "pace_tolerance": 0.01}
    assert tracks.track_rules(fifo, {"delete_after": "1000"})["delete_after"] == 1_000


@pytest.mark.parametrize(
    ("stored", "message"),
    [
        (
            {"delete_afer": 5},
            "Insert + delete (FIFO) has no rule parameter 'delete_afer'; it takes delete_after "
            "(default 250,000,000), pace_tolerance (default 0.01). Empty: the defaults.",
        ),
        ({"delete_after": 2.5}, "delete_after: 2.5 is not a whole number."),
        ({"delete_after": -1}, "delete_after: -1 is below 0."),
        ({"pace_tolerance": "lots"}, "pace_tolerance: 'lots' is not a number."),
    ],
)
def test_it_refuses_track_rules_it_cannot_use(stored, message):
    with pytest.raises(tracks.TrackInputError, match=re.escape(message)):
        tracks.track_rules(tracks.track_for("fifo"), stored)


@pytest.mark.django_db
def test_the_admin_form_stores_the_track_rules_complete_or_names_the_bad_one():
    contest = ContestFactory(workload=Workload.QUERY, track_rules={})
    contest.full_clean()
    assert contest.track_rules == {"query_at_rows": 125_000_000}

    contest.track_rules = {"delete_after": 10}
    with pytest.raises(ValidationError) as refused:
        contest.full_clean()
    assert "query_at_rows (default 125,000,000)" in str(refused.value.message_dict["track_rules"])


@pytest.mark.django_db
def test_applying_a_tracks_defaults_sets_its_target_and_parameters():
    contest = ContestFactory(workload=Workload.FIFO, track_rules={"delete_after": 5})

    services.contest_track_defaults_apply(contest=contest)

    contest.refresh_from_db()
    assert contest.target_rows == 500_000_000
    assert contest.terminal_window_rows == 10_000_000
    assert contest.track_rules == {"delete_after": 250_000_000, "pace_tolerance": 0.01}


def test_runs_printed_one_after_another_parse_apart_with_the_files_line_numbers():
    log = c_pk_run("autoinc", 60.0) + c_pk_run("uuid-char", 90.0)

    runs = parse_log_runs(io.BytesIO(log))

    assert [run.parameters["pk"].value for run in runs] == ["autoinc", "uuid-char"]
    assert [run.series.line[0] for run in runs] == [15, 31]
    assert [run.key_type_runs for run in runs] == [[], []]


def test_one_log_of_another_kind_is_one_run():
    runs = parse_log_runs(io.BytesIO(c_log()))

    assert len(runs) == 1 and len(runs[0].series) == 5


def test_a_broken_second_run_is_refused_at_its_own_line():
    log = c_pk_run("autoinc", 60.0) + c_pk_run("uuid-char", 90.0).replace(
        b"\t90.000\t", b"\tnan?\t"
    )

    with pytest.raises(LogError) as refused:
        parse_log_runs(io.BytesIO(log))

    assert refused.value.line == 31


def test_a_c_run_without_a_key_kind_cannot_be_a_key_type_run():
    with pytest.raises(LogError, match="states no key kind"):
        key_type_log(parse_log_runs(io.BytesIO(c_log() + c_log())))


def _module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # its package is not there either
        return False


def test_the_tracks_are_pure_python_the_worker_can_import_without_django():
    import subprocess
    import sys

    # Every track package with its rerun plan and judge, and the numbers and curve they share.
    # Every track package with its rerun plan and judge and its references, where it has them.
    modules = [
        "submissions.tracks", "submissions.measures.numbers", "submissions.measures.terminal",
        *(
            f"submissions.tracks.{workload}.{part}"
            for workload in tracks.TRACKS
            for part in ("rerun", "references")
            if _module_exists(f"submissions.tracks.{workload}.{part}")
        ),
    ]  # fmt: skip
    code = (
        f"import importlib, sys; [importlib.import_module(m) for m in {modules!r}]; "
        "sys.exit(any(name.startswith(('django', 'runner')) for name in sys.modules))"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_the_registry_never_imports_the_runner_and_the_rerun_service_never_its_tasks():
    """runner depends on submissions, never the reverse (it registers its panel and admin
    action); runner/services sends the rerun task by name instead of importing runner/tasks."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]

    def imported(path: Path) -> set[str]:
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
        return names

    registry = [path for path in (root / "submissions").rglob("*.py") if "tests" not in path.parts]
    assert registry
    for path in registry:
        assert not {name for name in imported(path) if name.split(".")[0] == "runner"}, path
    assert "runner.tasks" not in imported(root / "runner/services.py")
