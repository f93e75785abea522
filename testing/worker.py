"""A real Celery worker process for tests, sharing the test database and a real broker (the
Redis database REDIS_TEST_URL, or kombu's filesystem transport of the embedded default).

Fixtures `broker_settings` and `worker` are loaded for every app by the root conftest.py."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.db import connection

from runner.models import VerificationRun

REDIS_TEST_URL = os.environ.get("REDIS_TEST_URL", "redis://127.0.0.1:6379/15")
ROOT = Path(settings.BASE_DIR)


def test_database_url() -> str:
    """The pytest database, for a child process (a worker, a web server) to use."""
    db = connection.settings_dict
    return f"postgresql://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


class Worker:
    """`celery worker` in a child process, sharing the test database and the broker."""

    def __init__(
        self, tmp_path: Path, broker: str, hostname: str = "%h", *, ready: bool = True, **env: str
    ):
        """`hostname`: the machine part of its Celery hostname, the verification host it
        registers (runner/fleet.py); this machine's name by default. `ready=False` returns
        at once: call wait_ready() (workers then start side by side)."""
        self.log_path = tmp_path / f"worker-{time.monotonic_ns()}.log"
        environment = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "iibench_site.settings.test",
            "TEST_DATABASE_URL": test_database_url(),
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
             "-Q", "celery,rerun.sqlite,rerun.mariadb,rerun.mariadb-shared,rerun.postgresql,"
             "rerun.recovery-mariadb",
             "-n", f"test-{time.monotonic_ns()}@{hostname}"],
            cwd=ROOT, env=environment, stdout=self.log_path.open("w"), stderr=subprocess.STDOUT,
        )  # fmt: skip
        if ready:
            self.wait_ready()

    def wait_ready(self) -> None:
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


def use_broker(broker: str, folder: Path) -> None:
    """Send this process's tasks to the broker the worker reads: "redis" (REDIS_TEST_URL,
    emptied first) or "filesystem" (queues under `folder`)."""
    from iibench_site.celery import app

    if broker == "redis":
        redis.Redis.from_url(REDIS_TEST_URL).flushdb()
        app.conf.broker_url = REDIS_TEST_URL
        app.conf.broker_transport_options = {"visibility_timeout": 3600}
    else:
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


def reset_connections(app) -> None:
    # Celery caches its broker connections and producers: drop them so the next task is sent
    # to the broker configured now.
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def broker_settings(settings, tmp_path):
    """The test process sends tasks to the same broker the worker reads."""
    from iibench_site.celery import app

    yield lambda broker: use_broker(broker, tmp_path / "broker")
    app.conf.broker_url = settings.CELERY_BROKER_URL
    app.conf.broker_transport_options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    reset_connections(app)


@pytest.fixture
def worker(tmp_path, broker_settings, iibench_binary):
    """start(broker="redis", hostname="%h", **env) -> a running Worker, stopped after the
    test."""
    started = []

    def start(broker: str = "redis", hostname: str = "%h", **env: str) -> Worker:
        broker_settings(broker)
        started.append(Worker(tmp_path, broker, hostname, **env))
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


def wait_until(condition, timeout: float = 60) -> None:
    """Poll `condition` until it holds (a worker's beat, a host out of routing)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail("timed out")
        time.sleep(0.2)


def finished(run: VerificationRun) -> bool:
    return run.finished
