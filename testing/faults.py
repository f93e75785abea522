"""A private stack for fault tests: a PostgreSQL cluster (runner/servers.py's private server)
and a redis-server of the test's own (each on a free port, stopped and started by the test), the production server (gunicorn) and a
real Celery worker and beat against them. The shared services are never touched.

The fixture `fault_stack` is module-scoped: one stack for the tests of test_faults.py."""

from __future__ import annotations

import http.client
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

from runner.servers import PrivateServer, free_port, server_config
from testing.server import (
    ProductionServer,
    collect_static,
    production_environment,
    start_gunicorn,
)

ROOT = Path(settings.BASE_DIR)
PASSWORD = "a-long-fault-password-42"


def wait_until(condition, timeout: float, what: str, interval: float = 0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    pytest.fail(f"{what} within {timeout} s")


def _port_open(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        return True
    except OSError:
        return False


class PrivateRedis:
    """redis-server on its own port, with no persistence (as in the compose file)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        wait_until(lambda: _port_open(self.port), 10, "redis-server did not listen")

    def kill(self) -> None:
        """SIGKILL: everything it held (queued tasks, the cache) is gone."""
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        wait_until(lambda: not _port_open(self.port), 10, "redis-server did not stop")


class PrivatePostgres:
    """The stack's PostgreSQL: runner/servers.py's private server (its own cluster, port and
    socket under the recovery directory, removed at the end), stopped and started again by the
    tests. fsync is off: the tests stop it cleanly, they never crash it."""

    def __init__(self, server: PrivateServer):
        self.server = server

    @property
    def url(self) -> str:
        return self.server.client_url  # with its password: the site connects as the worker

    def init(self) -> None:
        self.server.initialize()
        self.start()
        self.server.create_database()

    def start(self) -> None:
        """Start it and return once it accepts connections."""
        self.server.start()
        if self.server.wait_until_answering(deadline=time.monotonic() + 30):
            pytest.fail("PostgreSQL did not accept connections within 30 s")

    def stop(self) -> None:
        """A fast shutdown (SIGINT): connections are cut, as when the server is restarted.
        (PrivateServer.stop's SIGTERM would wait for the site's connections to end.)"""
        process = self.server.server
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=30)

    def query(self, sql: str, *params) -> list[tuple]:
        with psycopg.connect(self.url) as connection:
            return connection.execute(sql, params).fetchall()


@dataclass
class Daemon:
    """A celery worker or beat of the stack, with its log."""

    process: subprocess.Popen
    log_path: Path

    @property
    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@dataclass
class FaultStack:
    folder: Path
    postgres: PrivatePostgres
    redis: PrivateRedis
    web: ProductionServer
    environment: dict[str, str]
    accounts: dict[str, str]  # "entrant" / "organizer" -> API token
    contest: str
    daemons: list[Daemon] = field(default_factory=list)

    def celery(self, *arguments: str, name: str) -> Daemon:
        """`celery -A iibench_site <arguments>` against the private stack, with a short sweep."""
        log_path = self.folder / f"{name}-{time.monotonic_ns()}.log"
        environment = {
            **self.environment,
            "IIBENCH_BINARY": str(settings.IIBENCH_BINARY),
            "RERUN_WORK_DIR": str(self.folder / "reruns"),
            "RERUN_HEARTBEAT_SECONDS": "1",
            "RERUN_SWEEP_SECONDS": "1",
            "RERUN_HEARTBEAT_TIMEOUT": str(HEARTBEAT_TIMEOUT_SECONDS),
            "RERUN_RESEND_SECONDS": str(RESEND_SECONDS),
            "LOG_LEVEL": "INFO",
        }
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "iibench_site", *arguments],
            cwd=ROOT, env=environment, stdout=log_path.open("w"), stderr=subprocess.STDOUT,
        )  # fmt: skip
        daemon = Daemon(process, log_path)
        self.daemons.append(daemon)
        return daemon

    def worker(self) -> Daemon:
        daemon = self.celery(
            "worker", "--concurrency=1", "--pool=prefork", "--loglevel=INFO", "--without-gossip",
            "--without-mingle", "-Q", "celery,rerun.sqlite", "-n", f"faults-{uuid.uuid4().hex}@%h",
            name="worker",
        )  # fmt: skip
        wait_until(lambda: "ready." in daemon.log, 60, "the worker did not start")
        return daemon

    def beat(self) -> Daemon:
        return self.celery(
            "beat",
            "--loglevel=INFO",
            "-s",
            str(self.folder / f"beat-{uuid.uuid4().hex}"),
            name="beat",
        )

    def stop_daemons(self) -> None:
        for daemon in self.daemons:
            daemon.stop()
        self.daemons.clear()

    def request(self, method: str, path: str, *, token: str | None = None, body: bytes = b"",
                content_type: str = "", timeout: float = 30) -> Answer:  # fmt: skip
        host, port = self.web.url.removeprefix("http://").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
        headers = {"Authorization": f"Token {token}"} if token else {}
        if content_type:
            headers["Content-Type"] = content_type
        connection.request(method, path, body=body or None, headers=headers)
        response = connection.getresponse()
        answer = Answer(response.status, dict(response.getheaders()), response.read())
        connection.close()
        return answer

    def entries(self) -> int:
        return self.postgres.query("SELECT count(*) FROM submissions_submission")[0][0]

    def stored_logs(self) -> list[Path]:
        return [path for path in (self.folder / "media").rglob("*") if path.is_file()]


# The stack's resend period: a rerun the broker lost is sent again within this plus the sweep's
# period (1 s) of the broker being back.
RESEND_SECONDS = 3
# A worker killed mid-run is noticed this long after its last heartbeat (every second here).
HEARTBEAT_TIMEOUT_SECONDS = 3


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode(errors="replace")

    def json(self):
        return json.loads(self.body)


def multipart(fields: dict[str, str], log: bytes, name: str = "run.log") -> tuple[bytes, str]:
    """A multipart/form-data body with the declaration's fields and the log."""
    boundary = secrets.token_hex(16)
    parts = []
    for key, value in fields.items():
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode()
        )
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="log"; filename="{name}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n".encode()
        + log
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


SETUP_SCRIPT = """
import json
from datetime import timedelta
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.authtoken.models import Token
from submissions.models import Contest

User = get_user_model()
entrant = User.objects.create_user("ada", "ada@example.org", "{password}")
organizer = User.objects.create_user("org", "org@example.org", "{password}", is_staff=True)
Contest.objects.create(
    slug="faults", title="Fault contest", target_rows=5_000_000,
    results_published_at=timezone.now() - timedelta(days=1),
)
print(json.dumps({{
    "entrant": Token.objects.create(user=entrant).key,
    "organizer": Token.objects.create(user=organizer).key,
}}))
"""


def manage(environment: dict[str, str], *arguments: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *arguments],
        cwd=ROOT, env=environment, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def fault_stack(tmp_path_factory):
    if not os.access(settings.IIBENCH_BINARY, os.X_OK):
        pytest.fail("The C benchmark is not built: run `make -C runner/iibench`.")
    folder = tmp_path_factory.mktemp("faults")
    redis_server = PrivateRedis(folder)
    web = None
    server = PrivateServer(server_config("postgresql"), "faults", {"fsync": "off"})
    with server:
        postgres = PrivatePostgres(server)
        try:
            postgres.init()
            redis_server.start()
            environment = production_environment(
                database_url=postgres.url,
                static_root=folder / "static",
                media_root=folder / "media",
                redis_url=redis_server.url,
            )
            manage(environment, "migrate", "--noinput")
            printed = manage(environment, "shell", "-c", SETUP_SCRIPT.format(password=PASSWORD))
            accounts = json.loads(printed.strip().splitlines()[-1])
            collect_static(environment)
            web = start_gunicorn(environment, folder / "gunicorn.log", folder / "media")
            stack = FaultStack(folder, postgres, redis_server, web, environment, accounts, "faults")
            yield stack
            stack.stop_daemons()
        finally:
            if web is not None:
                web.stop()
            redis_server.kill()
