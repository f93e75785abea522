"""The rerun service against the real C benchmark and real databases, without a worker."""

import subprocess
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connections
from django.utils import timezone

from runner import services
from runner.models import RerunStatus, VerificationRun

pytestmark = pytest.mark.django_db


def start(entry, organizer, rows=20_000, target="sqlite"):
    run = services.rerun_start(
        submission=entry, target=target, rows=rows, requested_by=organizer, comparison=True
    )
    assert services.rerun_claim(run_id=run.pk, worker="test")
    return run


def benchmark_processes(run) -> str:
    # The full path: other checkouts on the same machine run reruns with the same ids.
    path = f"{settings.RERUN_WORK_DIR}/rerun-{run.pk}.db"
    found = subprocess.run(["pgrep", "-af", path], capture_output=True, text=True)
    return found.stdout.strip()


def execute_and_close(run_id: int) -> None:
    try:
        services.rerun_execute(run_id=run_id)
    finally:
        connections.close_all()  # a thread's connection would keep the test database open


def test_a_sqlite_rerun_of_an_innodb_claim_is_a_comparison_that_never_verifies(
    entry, organizer, iibench_binary, rerun_dir
):
    run = start(entry, organizer)
    run = services.rerun_execute(run_id=run.pk)
    assert run.status == RerunStatus.SUCCEEDED, run.message
    assert run.kind == "comparison"
    assert run.verdict == "comparison"
    assert run.outcome == "comparison"  # one outcome shown, not "succeeded" beside it
    assert "never verifies the claim" in run.message
    assert run.rows_done == 20_000
    assert run.ratio > 1
    assert run.samples.count() == 20  # a report every 1,000 rows
    assert "# summary status=completed rows=20000" in run.log
    entry.refresh_from_db()
    assert (entry.verified, entry.verification) == (False, "")


def test_the_scratch_database_is_removed_after_the_run(
    entry, organizer, iibench_binary, rerun_dir, tmp_path
):
    run = start(entry, organizer)
    services.rerun_execute(run_id=run.pk)
    assert list((tmp_path / "reruns").glob("*.db*")) == []


def test_a_run_delivered_twice_is_claimed_once(entry, organizer):
    run = services.rerun_start(
        submission=entry, target="sqlite", rows=1_000, requested_by=organizer, comparison=True
    )
    assert services.rerun_claim(run_id=run.pk, worker="first") is True
    assert services.rerun_claim(run_id=run.pk, worker="second") is False
    run.refresh_from_db()
    assert run.worker == "first"


def test_an_unknown_target_or_absurd_rows_are_refused(entry, organizer):
    with pytest.raises(services.RerunRefused, match="Unknown target 'oracle'"):
        services.rerun_start(submission=entry, target="oracle", rows=1_000, requested_by=organizer)
    with pytest.raises(services.RerunRefused, match="at most"):
        services.rerun_start(
            submission=entry,
            target="sqlite",
            rows=10**15,
            requested_by=organizer,
            comparison=True,
        )
    assert VerificationRun.objects.count() == 0


def test_a_target_whose_database_is_down_fails_with_the_servers_message(
    entry, organizer, iibench_binary, rerun_dir, settings
):
    settings.RERUN_TARGETS = {
        **settings.RERUN_TARGETS,
        "mariadb-shared": {
            **settings.RERUN_TARGETS["mariadb-shared"],
            "url": "mysql://root@127.0.0.1:1/iibench_rerun",
        },
    }
    run = start(entry, organizer, target="mariadb-shared")
    run = services.rerun_execute(run_id=run.pk)
    assert run.status == RerunStatus.FAILED
    assert "cannot connect" in run.message.lower()
    assert "127.0.0.1" in run.message


def test_a_time_out_stops_the_benchmark(entry, organizer, iibench_binary, rerun_dir, settings):
    settings.RERUN_TARGETS = {
        **settings.RERUN_TARGETS,
        "sqlite": {**settings.RERUN_TARGETS["sqlite"], "time_limit": 1},
    }
    run = start(entry, organizer, rows=50_000_000)
    began = time.monotonic()
    run = services.rerun_execute(run_id=run.pk)
    assert run.status == RerunStatus.TIMED_OUT
    assert "Timed out after 1 s" in run.message
    assert time.monotonic() - began < 10
    assert "status=stopped" in run.log  # SIGTERM let the benchmark print its last report
    assert benchmark_processes(run) == ""


def test_cancelling_a_queued_run_needs_no_worker(entry, organizer):
    run = services.rerun_start(
        submission=entry, target="sqlite", rows=1_000, requested_by=organizer, comparison=True
    )
    run = services.rerun_cancel(run=run)
    assert run.status == RerunStatus.CANCELLED
    assert services.rerun_claim(run_id=run.pk, worker="late") is False


@pytest.mark.django_db(transaction=True)
def test_cancelling_a_running_run_stops_its_benchmark(
    entry, organizer, iibench_binary, rerun_dir, settings
):
    settings.RERUN_HEARTBEAT_SECONDS = 0.2
    run = start(entry, organizer, rows=5_000_000)
    worker = threading.Thread(target=execute_and_close, args=[run.pk])
    worker.start()
    deadline = time.monotonic() + 20
    while not run.samples.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    services.rerun_cancel(run=run)
    worker.join(timeout=20)
    run.refresh_from_db()
    assert run.status == RerunStatus.CANCELLED
    assert "Cancelled by an organizer" in run.message
    assert benchmark_processes(run) == ""


def test_the_sweep_fails_runs_whose_heartbeat_stopped(entry, organizer, settings):
    settings.RERUN_HEARTBEAT_TIMEOUT = 60
    stuck = start(entry, organizer)
    alive = start(entry, organizer)
    VerificationRun.objects.filter(pk=stuck.pk).update(
        heartbeat_at=timezone.now() - timedelta(seconds=61)
    )
    assert services.reruns_sweep() == 1
    stuck.refresh_from_db()
    alive.refresh_from_db()
    assert stuck.status == RerunStatus.FAILED
    assert "no heartbeat for more than 60 s" in stuck.message
    assert alive.status == RerunStatus.RUNNING


def test_the_sweep_removes_the_scratch_file_a_killed_rerun_left(
    entry, organizer, settings, iibench_binary, rerun_dir
):
    # The worker was killed (SIGKILL): its `finally` never ran and the benchmark's SQLite file
    # stayed behind. Here the benchmark writes that file and is killed the same way.
    settings.RERUN_HEARTBEAT_TIMEOUT = 60
    run = start(entry, organizer)
    work_dir = Path(rerun_dir)
    work_dir.mkdir(parents=True, exist_ok=True)
    scratch = work_dir / f"rerun-{run.pk}.db"
    benchmark = subprocess.Popen(
        [str(iibench_binary), "--db", f"sqlite:///{scratch}", "--rows", "50000000"],
        stdout=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while (not scratch.exists() or scratch.stat().st_size < 100_000) and (
            time.monotonic() < deadline
        ):
            time.sleep(0.05)
    finally:
        benchmark.kill()
        benchmark.wait()
    assert scratch.exists()
    VerificationRun.objects.filter(pk=run.pk).update(
        heartbeat_at=timezone.now() - timedelta(seconds=61)
    )

    assert services.reruns_sweep() == 1

    assert not scratch.exists()
    assert not list(work_dir.glob(f"rerun-{run.pk}.db*"))


def test_a_rerun_that_stops_on_a_database_error_fails_saying_that_error(
    entry, organizer, iibench_binary, rerun_dir
):
    """Issue 30: a rerun whose worker met a database error (under `make run`, SQLite's
    "database is locked") is failed with that error, not left for the sweep to queue again and
    then fail with a made-up reason. Here PostgreSQL itself refuses the progress it records."""
    run = start(entry, organizer)
    with connections["default"].cursor() as cursor:
        cursor.execute(
            "CREATE FUNCTION refuse_sample() RETURNS trigger AS $$ BEGIN "
            "RAISE EXCEPTION 'database is locked (a stand-in written by the test)'; END "
            "$$ LANGUAGE plpgsql"
        )
        cursor.execute(
            "CREATE TRIGGER refuse_sample BEFORE INSERT ON runner_rerunsample "
            "FOR EACH ROW EXECUTE FUNCTION refuse_sample()"
        )
    run = services.rerun_execute(run_id=run.pk)
    assert run.status == RerunStatus.FAILED
    assert "database is locked (a stand-in written by the test)" in run.message
    assert "data directory" not in run.message
    assert not benchmark_processes(run)
