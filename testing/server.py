"""The site served as in production, for tests that go through a real browser or real sockets:
static files collected with the production storage (whitenoise's compressed manifest), then
gunicorn with the production settings (DEBUG False) on a free loopback port, against the
pytest database. Plain HTTP on loopback, so the HTTPS redirect and the secure-only cookies are
switched off through their environment variables, as for any plain-HTTP local run.

Fixtures (registered by the root conftest.py):
- `production_server`: one server for the whole session;
- `live_site`: per test; empties the server's cache and points this process's MEDIA_ROOT at
  the server's, so entries a test stores are the ones the server shows. Tests using it need
  `django_db(transaction=True)`: the server only sees committed rows.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from django.conf import global_settings, settings

from testing.worker import REDIS_TEST_URL, test_database_url

ROOT = Path(settings.BASE_DIR)


def production_environment(
    *, database_url: str, static_root: Path, media_root: Path, redis_url: str
) -> dict[str, str]:
    """The environment of a production process on plain HTTP on loopback."""
    inherited = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("DJANGO_", "DATABASE_URL", "REDIS_URL"))
    }
    return {
        **inherited,
        "DJANGO_SETTINGS_MODULE": "iibench_site.settings.production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DATABASE_URL": database_url,
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
        "STATIC_ROOT": str(static_root),
        "MEDIA_ROOT": str(media_root),
        "REDIS_URL": redis_url,
        "LOG_LEVEL": "WARNING",
        # As docker-compose.yml runs gunicorn: see MALLOC_MMAP_THRESHOLD_ there.
        "MALLOC_MMAP_THRESHOLD_": "2097152",
    }


def collect_static(environment: dict[str, str]) -> None:
    """collectstatic with the production storage: hashed names, compressed copies, manifest."""
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
        cwd=ROOT, env=environment, check=True, capture_output=True,
    )  # fmt: skip


@dataclass
class ProductionServer:
    url: str
    process: subprocess.Popen
    log_path: Path
    media_root: Path
    workers: int = 3

    @property
    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            # gunicorn's arbiter stops its workers on SIGTERM; the group is this server's own.
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()

    def fresh_workers(self, timeout: float = 60) -> None:
        """Replace the workers with new processes (gunicorn's SIGHUP). A worker keeps what
        Django caches for the process, such as content type ids, which a transactional test's
        flush renumbers: an admin save then logs against an id that is gone."""
        old = self._workers()
        os.kill(self.process.pid, signal.SIGHUP)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            current = self._workers()
            if len(current) >= len(old) and not current & old:
                break
            time.sleep(0.2)
        else:
            pytest.fail(f"gunicorn did not replace its workers:\n{self.log[-4000:]}")
        wait_until_serving(self)

    def _workers(self) -> set[int]:
        found = subprocess.run(
            ["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True, check=False
        )
        return {int(pid) for pid in found.stdout.split()}


def start_gunicorn(
    environment: dict[str, str],
    log_path: Path,
    media_root: Path,
    workers: int = 3,
    application: str = "iibench_site.wsgi:application",
) -> ProductionServer:
    """gunicorn on a socket bound here to a free port and handed over as a file descriptor,
    so no other process can take the port between choosing it and listening on it. Its
    workers in WEB_CONCURRENCY too, as docker-compose.yml sets it: the site's
    LOG_READS_AT_ONCE defaults from it."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    port = listener.getsockname()[1]
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", application,
             "--bind", f"fd://{listener.fileno()}", "--workers", str(workers),
             "--timeout", "120", "--graceful-timeout", "5", "--access-logfile", "-"],
            cwd=ROOT, env={**environment, "WEB_CONCURRENCY": str(workers)},
            stdout=log, stderr=subprocess.STDOUT,
            pass_fds=[listener.fileno()], start_new_session=True,
        )  # fmt: skip
    listener.close()
    server = ProductionServer(f"http://127.0.0.1:{port}", process, log_path, media_root, workers)
    wait_until_serving(server)
    return server


def wait_until_serving(server: ProductionServer, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(server.url + "/", timeout=5) as response:  # noqa: S310
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        if server.process.poll() is not None or time.monotonic() > deadline:
            server.stop()
            pytest.fail(f"gunicorn did not start serving:\n{server.log[-4000:]}")
        time.sleep(0.2)


@pytest.fixture(scope="session")
def production_server(django_db_setup, tmp_path_factory):
    folder = tmp_path_factory.mktemp("production")
    environment = production_environment(
        database_url=test_database_url(),
        static_root=folder / "static",
        media_root=folder / "media",
        redis_url=REDIS_TEST_URL,
    )
    collect_static(environment)
    server = start_gunicorn(environment, folder / "gunicorn.log", folder / "media")
    yield server
    server.stop()


@pytest.fixture
def live_site(production_server, settings):
    """The production server, with an empty cache and this test's files where it reads them.
    Users made by this test get the production password hashers: the server cannot check
    the test settings' fast MD5 hashes."""
    redis.Redis.from_url(REDIS_TEST_URL).flushdb()
    settings.MEDIA_ROOT = str(production_server.media_root)
    settings.PASSWORD_HASHERS = global_settings.PASSWORD_HASHERS
    return production_server
