"""Reruns through a real Celery worker process and a real broker (Redis, and the filesystem
transport of the embedded default): the failure cases of a worker's life."""

import io
import itertools
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from runner import servers, services
from runner.models import RerunStatus, VerificationRun
from runner.tasks import run_verification
from submissions.logparse import parse_log
from testing.reruns import track_entry
from testing.worker import finished, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def benchmark_running(run: VerificationRun, tmp_path: Path) -> bool:
    # The full path: other checkouts on the same machine run reruns with the same ids.
    path = f"{tmp_path}/reruns/rerun-{run.pk}.db"
    found = subprocess.run(["pgrep", "-f", path], capture_output=True)
    return found.returncode == 0


@pytest.mark.parametrize("broker", ["redis", "filesystem"])
def test_a_rerun_runs_on_the_worker_and_gets_a_verdict(worker, entry, organizer, broker):
    worker(broker)
    run = services.rerun_start(
        submission=entry, target="sqlite", rows=20_000, requested_by=organizer, comparison=True
    )
    run = wait_for(run, finished)
    assert run.status == RerunStatus.SUCCEEDED, run.message
    assert run.verdict == "comparison"  # an InnoDB entry on SQLite
    assert run.samples.count() == 20


def test_the_same_task_delivered_twice_runs_once(worker, entry, organizer):
    running = worker("redis")
    run = services.rerun_start(
        submission=entry, target="sqlite", rows=20_000, requested_by=organizer, comparison=True
    )
    run_verification.apply_async(args=[run.pk], queue="rerun.sqlite")
    wait_for(run, finished)
    running.wait_for_log("skipped", timeout=30)
    run.refresh_from_db()
    assert run.status == RerunStatus.SUCCEEDED
    assert run.samples.count() == 20
    assert run.log.count("# summary") == 1


def test_cancel_stops_the_benchmark_on_the_worker(worker, entry, organizer, tmp_path):
    worker("redis")
    run = services.rerun_start(
        submission=entry, target="sqlite", rows=5_000_000, requested_by=organizer, comparison=True
    )
    wait_for(run, lambda r: r.rows_done > 0)
    services.rerun_cancel(run=run)
    run = wait_for(run, finished, timeout=30)
    assert run.status == RerunStatus.CANCELLED
    assert not benchmark_running(run, tmp_path)


def test_a_time_out_kills_the_benchmark_and_says_so(worker, entry, organizer, tmp_path):
    worker("redis", RERUN_SQLITE_TIME_LIMIT="2")
    run = services.rerun_start(
        submission=entry, target="sqlite", rows=50_000_000, requested_by=organizer, comparison=True
    )
    run = wait_for(run, finished, timeout=60)
    assert run.status == RerunStatus.TIMED_OUT
    assert run.message.startswith("Timed out after 2 s")
    assert not benchmark_running(run, tmp_path)


def test_a_target_database_that_is_down_fails_the_run_with_its_message(worker, entry, organizer):
    worker("redis", RERUN_TARGET_MARIADB_URL="mysql://root@127.0.0.1:1/iibench_rerun")
    run = services.rerun_start(
        submission=entry,
        target="mariadb-shared",
        rows=20_000,
        requested_by=organizer,
        comparison=True,
    )
    run = wait_for(run, finished)
    assert run.status == RerunStatus.FAILED
    assert "cannot connect" in run.message.lower()


def test_a_worker_killed_mid_run_is_resumed_by_the_next_into_one_curve(
    worker, entry, organizer, tmp_path
):
    first = worker("redis")
    run = services.rerun_start(
        submission=entry, target="sqlite", rows=200_000, requested_by=organizer, comparison=True
    )
    wait_for(run, lambda r: r.rows_done >= 30_000)
    os.kill(first.process.pid, signal.SIGKILL)
    first.process.wait()
    # The pool process and the benchmark die with the worker (PR_SET_PDEATHSIG).
    deadline = time.monotonic() + 10
    while benchmark_running(run, tmp_path) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not benchmark_running(run, tmp_path)
    run.refresh_from_db()
    assert run.status == RerunStatus.RUNNING  # nobody has noticed yet
    killed_at = run.rows_done
    # A new worker sweeps at start: past the heartbeat timeout the run is queued again and
    # continues its table from where the first worker's last report left it.
    time.sleep(3)
    worker("redis", RERUN_HEARTBEAT_TIMEOUT="2")
    run = wait_for(run, finished, timeout=120)
    assert run.status == RerunStatus.SUCCEEDED, run.message
    assert run.resumes == 1
    resumed = re.search(r"^# resumed at row (\d+) seconds=([\d.]+)$", run.log, re.MULTILINE)
    assert resumed, run.log[-3000:]
    resumed_at = int(resumed.group(1))
    assert killed_at <= resumed_at < 200_000
    # One curve: every report once, rows and seconds growing across the restart, in the
    # samples the page draws and in the log the verdict reads. Only a report the benchmark
    # printed as it was killed, unread, is missing: it lies between the two workers.
    samples = list(run.samples.order_by("rows"))
    rows = [s.rows for s in samples]
    assert rows[-1] == 200_000 and all(row % 2_000 == 0 for row in rows)
    missing = set(range(2_000, 200_001, 2_000)) - set(rows)
    assert all(killed_at < row <= resumed_at for row in missing), (missing, killed_at)
    assert all(a.seconds <= b.seconds for a, b in itertools.pairwise(samples))
    parsed = parse_log(io.BytesIO(run.log.encode()))
    assert list(parsed.series.rows) == [s.rows for s in samples]
    assert run.log.count("# iibench-c ") == 1
    assert "# summary status=completed rows=200000" in run.log


def test_a_worker_killed_mid_run_of_several_steps_fails_it_with_why(worker, organizer):
    first = worker("redis")
    entry = track_entry("pk_types", {})
    run = services.rerun_start(
        submission=entry, target="sqlite", rows=5_000_000, requested_by=organizer, comparison=True
    )
    wait_for(run, lambda r: r.rows_done > 0)
    os.kill(first.process.pid, signal.SIGKILL)
    first.process.wait()
    time.sleep(3)
    worker("redis", RERUN_HEARTBEAT_TIMEOUT="2")
    run = wait_for(run, finished, timeout=30)
    assert run.status == RerunStatus.FAILED
    assert "a rerun of several steps (or a load) cannot be resumed" in run.message


CRASH_CLAIM = {"insert_rate": 2_000.0, "rows_at_crash": 250_000_000, "recovery_seconds": 13.0}


def private_server_running(folder: str) -> bool:
    found = subprocess.run(["pgrep", "-f", folder], capture_output=True)
    return found.returncode == 0


def test_a_crash_recovery_rerun_runs_its_steps_live_on_the_worker(worker, organizer, recovery_dir):
    worker("redis", RERUN_RECOVERY_DIR=recovery_dir)
    entry = track_entry("crash_recovery", CRASH_CLAIM)
    run = services.rerun_start(
        submission=entry, target="recovery-mariadb", rows=6_000, requested_by=organizer
    )
    seen = []
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        run.refresh_from_db()
        seen.append((run.step, run.rows_done, run.heartbeat_at))
        if run.finished:
            break
        time.sleep(0.1)
    assert run.status == RerunStatus.SUCCEEDED, run.message
    # Progress was live: the insert step's rows grew while the run was running.
    inserting = [rows for step, rows, _ in seen if step == "insert"]
    assert len(set(inserting)) >= 3, seen
    assert {"insert", "recovery"} <= {step for step, _, _ in seen}
    assert len({beat for _, _, beat in seen}) >= 3  # the heartbeat kept beating
    assert run.result["recovery_seconds"] > 0
    assert run.result["rows_found"] >= run.result["rows_committed"]
    assert run.samples.filter(step="insert").count() >= 6
    assert "# rerun step=recovery" in run.log
    assert os.listdir(recovery_dir) == []


def test_a_worker_killed_during_crash_recovery_takes_its_server_with_it(
    worker, organizer, recovery_dir
):
    first = worker("redis", RERUN_RECOVERY_DIR=recovery_dir)
    entry = track_entry("crash_recovery", CRASH_CLAIM)
    run = services.rerun_start(
        submission=entry, target="recovery-mariadb", rows=1_000_000, requested_by=organizer
    )
    wait_for(run, lambda r: r.step == "insert" and r.rows_done > 0)
    assert private_server_running(recovery_dir)
    os.kill(first.process.pid, signal.SIGKILL)
    first.process.wait()
    # The pool process dies with the worker, the server and the benchmark with the pool
    # process (PR_SET_PDEATHSIG): only the files are left.
    deadline = time.monotonic() + 15
    while private_server_running(recovery_dir) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not private_server_running(recovery_dir)
    assert os.listdir(recovery_dir)
    # The next crash-recovery rerun on this host removes them before it starts its own.
    assert servers.remove_leftovers(recovery_dir)
    assert os.listdir(recovery_dir) == []


def test_a_killed_workers_verification_resumes_on_its_private_servers_data(
    worker, organizer, recovery_dir
):
    from testing.reruns import MY_CNF, entry_with

    entry = entry_with(MY_CNF)
    first = worker("redis", RERUN_RECOVERY_DIR=recovery_dir)
    run = services.rerun_start(
        submission=entry, target="mariadb", rows=300_000, requested_by=organizer
    )
    wait_for(run, lambda r: r.step == "insert" and r.rows_done >= 30_000, timeout=120)
    os.kill(first.process.pid, signal.SIGKILL)
    first.process.wait()
    # The killed worker's server is gone, its data stays (beside its reference server's
    # folder, which the next rerun's start removes: a resumed rerun runs no references).
    folders = [each for each in Path(recovery_dir).iterdir() if f"v{run.pk}-" in each.name]
    assert len(folders) == 1, list(Path(recovery_dir).iterdir())
    deadline = time.monotonic() + 10
    while private_server_running(str(folders[0])) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not private_server_running(str(folders[0]))
    time.sleep(3)
    worker("redis", RERUN_HEARTBEAT_TIMEOUT="2", RERUN_RECOVERY_DIR=recovery_dir)
    run = wait_for(run, finished, timeout=240)
    assert run.status == RerunStatus.SUCCEEDED, f"{run.message}\n{run.log[-3000:]}"
    assert (run.kind, run.resumes) == ("verification", 1)
    assert "# rerun restarted the private mariadb server on its data" in run.log
    assert re.search(r"^# resumed at row \d+ seconds=", run.log, re.MULTILINE)
    assert "# summary status=completed rows=300000" in run.log
    # The benchmark's output, after the rerun's own lines about the server: one curve.
    output = run.log[run.log.index("# iibench-c ") :]
    rows = list(parse_log(io.BytesIO(output.encode())).series.rows)
    assert rows == sorted(set(rows)) and rows[-1] == 300_000
    assert run.settings["innodb_flush_log_at_trx_commit"] == "2"
    assert list(Path(recovery_dir).iterdir()) == []  # removed once the run is over
