"""Fixtures for the C iiBench tests: the binary, and a scratch database on
each backend (SQLite in a temporary directory, `iibench_ctest` on the MariaDB
and PostgreSQL servers, created and dropped here).

The servers are not optional: when one is down the tests fail and say how to
start it, they are never skipped.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from iibench_output import Output, parse

HERE = Path(__file__).resolve().parent
BINARY = Path(os.environ.get("IIBENCH_BINARY", HERE.parent / "iibench"))
MYSQL_URL = os.environ.get("IIBENCH_TEST_MYSQL_URL", "mysql://root@127.0.0.1:3306/iibench_ctest")
PG_URL = os.environ.get("IIBENCH_TEST_PG_URL", "postgresql://root@127.0.0.1:5432/iibench_ctest")
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")
DEFAULT_TIMEOUT_S = 120


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> Output:
        return parse(self.stdout)


def check_sanitizers(stderr: str) -> None:
    for mark in SANITIZER_MARKS:
        assert mark not in stderr, f"sanitizer report:\n{stderr}"


def run_iibench(
    *args: str, expect: int | None = 0, timeout: float = DEFAULT_TIMEOUT_S, cwd: Path | None = None
) -> Result:
    """Runs the binary; by default it must exit 0."""
    assert BINARY.exists(), f"{BINARY} is missing: run `make` in runner/iibench first"
    proc = subprocess.run(
        [str(BINARY), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=cwd,
    )
    check_sanitizers(proc.stderr)
    result = Result(proc.returncode, proc.stdout, proc.stderr)
    if expect is not None:
        assert proc.returncode == expect, (
            f"exit {proc.returncode}, expected {expect}\nstdout:\n{proc.stdout}\n"
            f"stderr:\n{proc.stderr}"
        )
    return result


@dataclass
class Database:
    """A scratch database of one backend and a DB-API way to look into it."""

    kind: str
    url: str
    connect: Callable[[], object]

    def query(self, sql: str) -> list[tuple]:
        conn = self.connect()
        try:
            cur = conn.cursor()
            cur.execute(sql)
            rows = list(cur.fetchall())
            conn.commit()
            return rows
        finally:
            conn.close()

    def scalar(self, sql: str):
        return self.query(sql)[0][0]

    def execute(self, sql: str) -> None:
        conn = self.connect()
        try:
            conn.cursor().execute(sql)
            conn.commit()
        finally:
            conn.close()


def server_down(kind: str, url: str, error: Exception) -> None:
    start = {
        "mysql": "start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd",
        "postgresql": "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start",
    }[kind]
    pytest.fail(
        f"the {kind} server for the tests is not reachable at {url}: {error}\n"
        f"Start it (`{start}`) or point IIBENCH_TEST_"
        f"{'MYSQL' if kind == 'mysql' else 'PG'}_URL at one.",
        pytrace=False,
    )


def mysql_params(url: str) -> dict:
    parts = urlsplit(url)
    return {
        "host": parts.hostname or "localhost",
        "port": parts.port or 3306,
        "user": unquote(parts.username or "root"),
        "password": unquote(parts.password or ""),
        "database": parts.path.lstrip("/"),
    }


def pg_params(url: str) -> dict:
    parts = urlsplit(url)
    params = {
        "host": parts.hostname or "localhost",
        "port": parts.port or 5432,
        "user": unquote(parts.username or "postgres"),
        "dbname": parts.path.lstrip("/"),
    }
    if parts.password:
        params["password"] = unquote(parts.password)
    return params


@pytest.fixture(scope="session")
def mysql_db() -> Iterator[Database]:
    import pymysql

    params = mysql_params(MYSQL_URL)
    name = params.pop("database")
    try:
        admin = pymysql.connect(**params, autocommit=True)
    except pymysql.err.OperationalError as error:
        server_down("mysql", MYSQL_URL, error)
    with admin.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS `{name}`")
        cur.execute(f"CREATE DATABASE `{name}`")

    def connect():
        return pymysql.connect(**params, database=name, local_infile=True)

    yield Database("mysql", MYSQL_URL, connect)
    with admin.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS `{name}`")
    admin.close()


@pytest.fixture(scope="session")
def pg_db() -> Iterator[Database]:
    import psycopg

    params = pg_params(PG_URL)
    name = params.pop("dbname")
    try:
        admin = psycopg.connect(**params, dbname="postgres", autocommit=True)
    except psycopg.OperationalError as error:
        server_down("postgresql", PG_URL, error)
    admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.execute(f'CREATE DATABASE "{name}"')

    def connect():
        return psycopg.connect(**params, dbname=name)

    yield Database("postgresql", PG_URL, connect)
    admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.close()


@pytest.fixture
def sqlite_db(tmp_path: Path) -> Database:
    path = tmp_path / "iibench.db"
    return Database("sqlite", f"sqlite:///{path}", lambda: sqlite3.connect(path))


BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("mysql", id="mysql", marks=pytest.mark.server),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.server),
]


@pytest.fixture(params=BACKENDS)
def db(request: pytest.FixtureRequest) -> Database:
    """The scratch database of each backend in turn."""
    fixture = {"sqlite": "sqlite_db", "mysql": "mysql_db", "postgresql": "pg_db"}[request.param]
    return request.getfixturevalue(fixture)
