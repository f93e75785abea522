"""A small rerun of each track through the service, against the real C benchmark and real
databases (crash recovery has its own file: test_recovery.py)."""

from pathlib import Path

import pytest

from runner import services
from runner.models import RerunStatus
from testing.reruns import track_entry

pytestmark = pytest.mark.django_db


def run_through(entry, organizer, target: str, rows: int):
    # The mariadb target starts a private server with the entry's settings: a verification.
    run = services.rerun_start(
        submission=entry,
        target=target,
        rows=rows,
        requested_by=organizer,
        comparison=target != "mariadb",
    )
    assert services.rerun_claim(run_id=run.pk, worker="test")
    run = services.rerun_execute(run_id=run.pk)
    assert run.status == RerunStatus.SUCCEEDED, f"{run.message}\n{run.log[-3000:]}"
    return run


def test_a_fifo_rerun_deletes_from_the_scaled_row_and_compares_the_terminal_rate(
    organizer, iibench_binary, rerun_dir
):
    entry = track_entry(
        "fifo",
        {
            "delete_after": 250_000_000,
            "deletes_start_row": 250_000_000,
            "terminal_insert_rate": 204.0,
            "terminal_window_rows": 10_000_000,
        },
        rows=500_000_000,
    )
    run = run_through(entry, organizer, "mariadb", rows=20_000)
    assert "--delete-after 10000" in run.log
    assert "# summary status=completed rows=20000" in run.log
    assert run.result["delete_after"] == 10_000
    assert run.result["deletes_start_row"] == 10_000  # where the curve marks the deletes
    assert run.result["terminal_window_rows"] == 1_000
    assert run.result["terminal_insert_rate"] > 204
    assert run.verdict == "reproduced"
    assert run.ratio == pytest.approx(run.result["terminal_insert_rate"] / 204.0)
    assert "25,000x smaller" in run.message
    assert run.samples.count() == 20


def test_a_query_rerun_times_its_query_thread_against_the_claims_times(
    organizer, iibench_binary, rerun_dir
):
    # Generous claimed times (half a second a query) that any machine beats.
    claim = {"points": [[5_000, 0.5], [15_000, 0.5]], "source": "log"}
    entry = track_entry("query", claim, rows=15_000)
    run = run_through(entry, organizer, "sqlite", rows=20_000)
    assert "--query-threads 1" in run.log
    assert run.result["query_threads"] == 1
    points = run.result["points"]
    assert points and all(seconds > 0 for _, seconds in points)
    # An InnoDB entry's queries timed on SQLite: a comparison of engines, never a verification.
    assert run.verdict == "comparison", run.message
    assert "At 2 table sizes both timed" in run.message


def test_a_key_type_rerun_runs_three_tables_on_innodb_and_compares_their_ratios(
    organizer, iibench_binary, rerun_dir
):
    claim = {"ratios": {"uuid-char": 14.52 / 9.718, "uuid-ordered": 6.671 / 9.718}}
    entry = track_entry("pk_types", claim, rows=500_000)
    run = run_through(entry, organizer, "mariadb", rows=6_000)
    for index, kind in enumerate(["autoinc", "uuid-char", "uuid-ordered"], 1):
        assert f"# rerun step={kind} ({index} of 3)" in run.log
        assert f"--pk {kind} --writers 2 --readers 2 --reader-pause-ms 100" in run.log
        assert run.samples.filter(step=kind).count() == 6
        figures = run.result["runs"][kind]
        assert figures["rows"] == 6_000
        assert figures["minutes"] > 0 and figures["write_rate"] > 0
        assert figures["read_rate"] is not None
    assert run.log.count("# summary status=completed rows=6000") == 3
    assert set(run.result["ratios"]) == {"uuid-char", "uuid-ordered"}
    assert (run.step, run.rows_done) == ("uuid-ordered", 6_000)
    assert run.verdict in ("reproduced", "not_reproduced")
    assert "Relative to the auto-increment key, the rerun took" in run.message


@pytest.mark.parametrize("target", ["mariadb", "postgresql"])
def test_a_bulk_load_rerun_loads_the_entrys_class_and_compares_rows_per_second(
    organizer, iibench_binary, rerun_dir, target
):
    claim = {"keys": 4, "row_length": 64, "rows": 100_000_000, "rows_per_s": 82_000.0}
    entry = track_entry("bulk_load", claim, rows=100_000_000)
    run = run_through(entry, organizer, target, rows=20_000)
    assert "# summary status=completed mode=load rows=20000 keys=4 row_length=64" in run.log
    result = run.result
    assert (result["keys"], result["row_length"], result["rows"]) == (4, 64, 20_000)
    assert result["kv_pairs_per_s"] == pytest.approx(4 * result["rows_per_s"], rel=0.01)
    assert (run.rows_done, run.rate) == (20_000, result["rows_per_s"])
    assert run.ratio == pytest.approx(result["rows_per_s"] / 82_000.0)
    # The entry is InnoDB's: on PostgreSQL the rerun compares engines.
    expected = ("reproduced", "not_reproduced") if target == "mariadb" else ("comparison",)
    assert run.verdict in expected
    assert not list(Path(rerun_dir).glob("rerun-*-load"))  # the generated data is removed


def test_a_bulk_load_entry_without_a_class_is_refused_at_once(organizer):
    entry = track_entry("bulk_load", {"rows_per_s": 82_000.0})
    with pytest.raises(services.RerunRefused, match="no bulk-load class"):
        services.rerun_start(
            submission=entry,
            target="sqlite",
            rows=20_000,
            requested_by=organizer,
            comparison=True,
        )


def test_the_time_limit_covers_every_step_and_stops_the_one_running(
    organizer, iibench_binary, rerun_dir, settings
):
    settings.RERUN_TARGETS = {
        **settings.RERUN_TARGETS,
        "sqlite": {**settings.RERUN_TARGETS["sqlite"], "time_limit": 2},
    }
    entry = track_entry("pk_types", {})
    run = services.rerun_start(
        submission=entry, target="sqlite", rows=5_000_000, requested_by=organizer, comparison=True
    )
    assert services.rerun_claim(run_id=run.pk, worker="test")
    run = services.rerun_execute(run_id=run.pk)
    assert run.status == RerunStatus.TIMED_OUT
    assert run.step == "autoinc"
    assert "# rerun step=autoinc (1 of 3)" in run.log
    assert "status=stopped" in run.log  # SIGTERM let the benchmark print its last report
    assert "# rerun step=uuid-char" not in run.log  # the later steps never started
