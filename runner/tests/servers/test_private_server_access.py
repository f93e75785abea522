"""A private server (a verification's, the runner's) accepts no local connection but the
worker's: another local user (`nobody`, through runuser) reaching its TCP port or its socket
is refused, and so is the worker's own OS user without the password made for the server; the
C benchmark, given the password in its environment (never on its command line), connects and
runs. One private MariaDB and one private PostgreSQL, started once each."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from django.conf import settings

from runner import servers

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("runuser") is None,
    reason="another OS user's connection needs root to run as nobody (runuser)",
)


@pytest.fixture(scope="module")
def base_dir():
    # Reachable by the servers' users; the servers' own directories inside are 0700.
    folder = Path(tempfile.mkdtemp(prefix="acc-", dir="/tmp"))
    os.chmod(folder, 0o755)  # noqa: S103 - the servers' users must reach their directories
    yield str(folder)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module", params=["mariadb", "postgresql"])
def server(request, base_dir):
    config = servers.ServerConfig(kind=request.param, base_dir=base_dir)
    with servers.PrivateServer(config, f"access-{request.param}") as running:
        running.initialize()
        running.start()
        assert running.wait_until_answering(deadline=time.monotonic() + 60) is None
        running.create_database()
        yield running


def client(server: servers.PrivateServer, *, socket: bool, password: str = "") -> list[str]:
    """The server's own command-line client, as an intruder would run it."""
    if server.config.kind == "mariadb":
        # --protocol: the client would go over TCP to a port given with a socket.
        where = (
            ["--protocol=socket", f"--socket={server.root}/mysqld.sock"]
            if socket
            else ["--protocol=tcp", "-h127.0.0.1", f"-P{server.port}"]
        )
        secret = [f"--password={password}"] if password else ["--skip-password"]
        return ["mariadb", *where, "-uroot", *secret, "-e", "SELECT 1"]
    host = str(server.root) if socket else "127.0.0.1"
    user = server._superuser()
    # -w: never prompt; the password, if any, from the environment below.
    return ["psql", "-w", "-h", host, "-p", str(server.port), "-U", user, "-c", "SELECT 1"]


def connect(arguments: list[str], *, as_user: str | None, password: str = ""):
    prefix = ["runuser", "-u", as_user, "--"] if as_user else []
    environment = {"PATH": os.environ["PATH"], "LC_ALL": "C"}
    if password and "psql" in arguments:
        environment["PGPASSWORD"] = password
    return subprocess.run(
        [*prefix, *arguments],
        capture_output=True,
        text=True,
        timeout=30,
        env=environment,
        cwd="/",
        check=False,
    )


@pytest.mark.parametrize("socket", [False, True], ids=["tcp", "socket"])
def test_another_local_user_is_refused(server, socket):
    done = connect(client(server, socket=socket), as_user="nobody")
    assert done.returncode != 0, done.stdout
    said = done.stderr.lower()
    # Over TCP the server refuses it; its socket sits in a 0700 directory nobody cannot enter.
    expected = ("permission denied", "can't connect") if socket else ("access denied", "password")
    assert any(word in said for word in expected), done.stderr


def test_another_local_user_with_a_guessed_password_is_refused(server):
    done = connect(client(server, socket=False, password="root"), as_user="nobody", password="root")
    assert done.returncode != 0 and done.stderr, done.stdout


@pytest.mark.parametrize("socket", [False, True], ids=["tcp", "socket"])
def test_the_workers_own_user_needs_the_password_too(server, socket):
    # Root (the worker here) passes the directory's mode: only the password lets it in.
    without = connect(client(server, socket=socket), as_user=None)
    assert without.returncode != 0, without.stdout
    password = server.password
    with_it = connect(
        client(server, socket=socket, password=password), as_user=None, password=password
    )
    assert with_it.returncode == 0, with_it.stderr


def test_the_benchmark_connects_with_the_password_in_its_environment_only(server):
    assert server.password and server.password not in server.url
    arguments = [str(settings.IIBENCH_BINARY), "--db", server.url, "--rows", "2000"]
    arguments += ["--report-every", "1000"]
    refused = subprocess.run(arguments, capture_output=True, text=True, timeout=60, check=False)
    assert refused.returncode != 0 and "cannot connect" in refused.stderr + refused.stdout
    done = subprocess.run(
        arguments,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": os.environ["PATH"], "LC_ALL": "C", **server.client_environment()},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "status=completed rows=2000" in done.stdout.splitlines()[-1]
    assert server.password not in done.stdout + done.stderr  # nor in the log it prints


def test_the_password_file_is_the_server_users_alone(server):
    kept = Path(server.root) / "password"
    assert oct(kept.stat().st_mode & 0o777) == "0o600"
    assert oct(Path(server.root).stat().st_mode & 0o777) == "0o700"
    assert not (Path(server.root) / "access.sql").exists()  # the bootstrap's file is gone
