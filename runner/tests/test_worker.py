"""Reruns through a real Celery worker process and a real broker (Redis, and the filesystem
transport of the embedded default): the failure cases of a worker's life."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.db import connection

from runner import recovery, services
from runner.models import RerunStatus, VerificationRun
from runner.tasks import run_verification
from runner.tests.conftest import track_entry

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

REDIS_TEST_URL = os.environ.get("REDIS_TEST_URL", "redis://127.0.0.1:6379/15")
ROOT = Path(settings.BASE_DIR)


class Worker:
    """`celery worker` in a child process, sharing the test database and the broker."""

    def __init__(self, tmp_path: Path, broker: str, **env: str):
        self.log_path = tmp_path / f"worker-{time.monotonic_ns()}.log"
        db = connection.settings_dict
        environment = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "iibench_site.settings.test",
            "TEST_DATABASE_URL": f"postgresql://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
            "IIBENCH_BINARY": str(settings.IIBENCH_BINARY),
            "RERUN_WORK_DIR": str(tmp_path / "reruns"),
            "RERUN_HEARTBEAT_SECONDS": "1",
            "REDIS_URL": REDIS_TEST_URL if broker == "redis" else "",
            "CELERY_BROKER_DIR": str(tmp_path / "broker"),
            **env,
        }
        self.process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "iibench_site", "worker", "--concurrency=1",
             "--pool=prefork", "--loglevel=INFO", "--without-gossip", "--without-mingle",
             "-Q", "celery,rerun.sqlite,rerun.mariadb,rerun.recovery-mariadb",
             "-n", f"test-{time.monotonic_ns()}@%h"],
            cwd=ROOT, env=environment, stdout=self.log_path.open("w"), stderr=subprocess.STDOUT,
        )  # fmt: skip
        self.wait_for_log("ready.", timeout=60)

    @property
    def log(self) -> str:
        return self.log_path.read_text()

    def wait_for_log(self, text: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.log:
            if self.process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"worker never logged {text!r}:\n{self.log[-3000:]}")
            time.sleep(0.2)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def broker_settings(settings, tmp_path):
    """The test process sends tasks to the same broker the worker reads."""
    from iibench_site.celery import app

    def use(broker: str):
        if broker == "redis":
            redis.Redis.from_url(REDIS_TEST_URL).flushdb()
            app.conf.broker_url = REDIS_TEST_URL
            app.conf.broker_transport_options = {"visibility_timeout": 3600}
        else:
            folder = tmp_path / "broker"
            for sub in ("queue", "processed", "control"):
                (folder / sub).mkdir(parents=True, exist_ok=True)
            app.conf.broker_url = "filesystem://"
            app.conf.broker_transport_options = {
                "data_folder_in": str(folder / "queue"),
                "data_folder_out": str(folder / "queue"),
                "processed_folder": str(folder / "processed"),
                "control_folder": str(folder / "control"),
            }
        reset_connections(app)

    yield use
    app.conf.broker_url = settings.CELERY_BROKER_URL
    app.conf.broker_transport_options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    reset_connections(app)


def reset_connections(app) -> None:
    # Celery caches its broker connections and producers: drop them so the next task is sent
    # to the broker configured now.
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def worker(tmp_path, broker_settings, iibench_binary):
    started = []

    def start(broker: str = "redis", **env: str) -> Worker:
        broker_settings(broker)
        started.append(Worker(tmp_path, broker, **env))
        return started[-1]

    yield start
    for each in started:
        each.stop()


def wait_for(run: VerificationRun, condition, timeout: float = 60) -> VerificationRun:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if condition(run):
            return run
        time.sleep(0.2)
    pytest.fail(f"rerun #{run.pk} stayed {run.status}: {run.message}")


def finished(run: VerificationRun) -> bool:
    return run.finished


def benchmark_running(run: VerificationRun, tmp_path: Path) -> bool:
    # The full path: other checkouts on the same machine run reruns with the same ids.
    path = f"{tmp_path}/reruns/rerun-{run.pk}.db"
    found = subprocess.run(["pgrep", "-f", path], capture_output=True)
    return found.returncode == 0


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


def test_cancel_stops_the_benchmark_on_the_worker(worker, entry, organizer, tmp_path):
    worker("redis")
    run = services.rerun_start(
        submission=entry, target="sqlite", rows=5_000_000, requested_by=organizer
    )
    wait_for(run, lambda r: r.rows_done > 0)
    services.rerun_cancel(run=run)
    run = wait_for(run, finished, timeout=30)
    assert run.status == RerunStatus.CANCELLED
    assert not benchmark_running(run, tmp_path)


def test_a_time_out_kills_the_benchmark_and_says_so(worker, entry, organizer, tmp_path):
    worker("redis", RERUN_SQLITE_TIME_LIMIT="2")
    run = services.rerun_start(
        submission=entry, target="sqlite", rows=50_000_000, requested_by=organizer
    )
    run = wait_for(run, finished, timeout=60)
    assert run.status == RerunStatus.TIMED_OUT
    assert run.message.startswith("Timed out after 2 s")
    assert not benchmark_running(run, tmp_path)


def test_a_target_database_that_is_down_fails_the_run_with_its_message(worker, entry, organizer):
    worker("redis", RERUN_TARGET_MARIADB_URL="mysql://root@127.0.0.1:1/iibench_rerun")
    run = services.rerun_start(
        submission=entry, target="mariadb", rows=20_000, requested_by=organizer
    )
    run = wait_for(run, finished)
    assert run.status == RerunStatus.FAILED
    assert "cannot connect" in run.message.lower()


def test_a_worker_killed_mid_run_does_not_leave_the_run_running(worker, entry, organizer, tmp_path):
    first = worker("redis")
    run = services.rerun_start(
        submission=entry, target="sqlite", rows=5_000_000, requested_by=organizer
    )
    wait_for(run, lambda r: r.rows_done > 0)
    os.kill(first.process.pid, signal.SIGKILL)
    first.process.wait()
    # The pool process and the benchmark die with the worker (PR_SET_PDEATHSIG).
    deadline = time.monotonic() + 10
    while benchmark_running(run, tmp_path) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not benchmark_running(run, tmp_path)
    run.refresh_from_db()
    assert run.status == RerunStatus.RUNNING  # nobody has noticed yet
    # A new worker sweeps at start: past the heartbeat timeout the run is failed, with why.
    time.sleep(3)
    worker("redis", RERUN_HEARTBEAT_TIMEOUT="2")
    run = wait_for(run, finished, timeout=30)
    assert run.status == RerunStatus.FAILED
    assert "The worker stopped: no heartbeat for more than 2 s" in run.message


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
    assert recovery.remove_leftovers(recovery_dir)
    assert os.listdir(recovery_dir) == []
