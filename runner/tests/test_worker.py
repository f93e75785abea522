"""Reruns through a real Celery worker process and a real broker (Redis, and the filesystem
transport of the embedded default): the failure cases of a worker's life."""

import os
import signal
import time

import pytest

from runner import services
from runner.models import RerunStatus
from runner.tasks import run_verification
from runner.tests.worker import finished, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("broker", ["redis", "filesystem"])
def test_a_rerun_runs_on_the_worker_and_gets_a_verdict(worker, entry, organizer, broker):
    worker(broker)
    run = services.rerun_start(
        submission=entry, target="sqlite", rows=20_000, requested_by=organizer
    )
    run = wait_for(run, finished)
    assert run.status == RerunStatus.SUCCEEDED, run.message
    assert run.verdict == "reproduced"
    assert run.samples.count() == 20


def test_the_same_task_delivered_twice_runs_once(worker, entry, organizer):
    running = worker("redis")
    run = services.rerun_start(
        submission=entry, target="sqlite", rows=20_000, requested_by=organizer
    )
    run_verification.apply_async(args=[run.pk], queue="rerun.sqlite")
    wait_for(run, finished)
    running.wait_for_log("skipped", timeout=30)
    run.refresh_from_db()
    assert run.status == RerunStatus.SUCCEEDED
    assert run.samples.count() == 20
    assert run.log.count("# summary") == 1


def test_cancel_stops_the_benchmark_on_the_worker(worker, entry, organizer):
    running = worker("redis")
    run = services.rerun_start(
        submission=entry, target="sqlite", rows=50_000_000, requested_by=organizer
    )
    wait_for(run, lambda r: r.rows_done > 0)
    services.rerun_cancel(run=run)
    run = wait_for(run, finished, timeout=30)
    assert run.status == RerunStatus.CANCELLED
    assert not running.benchmark_running(run)


def test_a_time_out_kills_the_benchmark_and_says_so(worker, entry, organizer, settings):
    running = worker("redis", RERUN_SQLITE_TIME_LIMIT="2")
    run = services.rerun_start(
        submission=entry, target="sqlite", rows=50_000_000, requested_by=organizer
    )
    run = wait_for(run, finished, timeout=60)
    assert run.status == RerunStatus.TIMED_OUT
    assert run.message.startswith("Timed out after 2 s")
    assert not running.benchmark_running(run)


def test_a_target_database_that_is_down_fails_the_run_with_its_message(worker, entry, organizer):
    worker("redis", RERUN_TARGET_MARIADB_URL="mysql://root@127.0.0.1:1/iibench_rerun")
    run = services.rerun_start(
        submission=entry, target="mariadb", rows=20_000, requested_by=organizer
    )
    run = wait_for(run, finished)
    assert run.status == RerunStatus.FAILED
    assert "cannot connect" in run.message.lower()


def test_a_worker_killed_mid_run_does_not_leave_the_run_running(worker, entry, organizer, settings):
    first = worker("redis")
    run = services.rerun_start(
        submission=entry, target="sqlite", rows=50_000_000, requested_by=organizer
    )
    wait_for(run, lambda r: r.rows_done > 0)
    os.kill(first.process.pid, signal.SIGKILL)
    first.process.wait()
    # The pool process and the benchmark die with the worker (PR_SET_PDEATHSIG).
    deadline = time.monotonic() + 10
    while first.benchmark_running(run) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not first.benchmark_running(run)
    run.refresh_from_db()
    assert run.status == RerunStatus.RUNNING  # nobody has noticed yet
    # A new worker sweeps at start: past the heartbeat timeout the run is failed, with why.
    time.sleep(3)
    worker("redis", RERUN_HEARTBEAT_TIMEOUT="2")
    run = wait_for(run, finished, timeout=30)
    assert run.status == RerunStatus.FAILED
    assert "The worker stopped: no heartbeat for more than 2 s" in run.message
