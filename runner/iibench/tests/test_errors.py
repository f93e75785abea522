"""Failures are loud: a message and a non-zero exit, never a silent partial
success."""

from __future__ import annotations

import subprocess
import time

import pytest

from conftest import BINARY, Database, check_sanitizers, run_iibench


def test_a_bad_url_exits_2_with_the_expected_forms() -> None:
    result = run_iibench("--db", "oracle://x/y", expect=2)

    assert "bad --db URL" in result.stderr
    assert "mysql://user:pass@host:port/db" in result.stderr


def test_a_url_without_a_database_exits_2() -> None:
    result = run_iibench("--db", "mysql://root@127.0.0.1:3306", expect=2)

    assert "a database name is required" in result.stderr


@pytest.mark.parametrize(
    "url", ["mysql://root@127.0.0.1:1/iibench", "postgresql://root@127.0.0.1:1/iibench"]
)
def test_a_server_that_is_down_exits_2_with_its_message(url: str) -> None:
    result = run_iibench("--db", url, "--rows", "10", expect=2)

    assert f"iibench: error: cannot connect to {url}: " in result.stderr
    assert "refused" in result.stderr or "connect" in result.stderr.split(": ", 3)[-1]
    assert result.output.summary["status"] == "failed"


def test_an_unknown_option_exits_2() -> None:
    result = run_iibench("--rows-per-second", "5", expect=2)

    assert "unknown option '--rows-per-second'" in result.stderr
    assert "--help" in result.stderr
    assert result.stdout == ""


def test_rows_per_insert_above_rows_per_commit_exits_2() -> None:
    result = run_iibench("--rows-per-insert", "2000", "--rows-per-commit", "1000", expect=2)

    assert "--rows-per-insert (2000) cannot exceed --rows-per-commit (1000)" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--rows", "many"],
        ["--writers", "0"],
        ["--pk", "serial"],
        ["--start-time", "2008-13-01T00:00:00"],
        ["--engine", "x;y"],
    ],
)
def test_bad_values_exit_2(args: list[str]) -> None:
    result = run_iibench(*args, expect=2)

    assert result.stderr.startswith("iibench: error: ")


def test_a_missing_sqlite_directory_exits_2(tmp_path) -> None:
    result = run_iibench("--db", f"sqlite:///{tmp_path}/no/such/dir/x.db", expect=2)

    assert "cannot connect to sqlite:" in result.stderr


@pytest.mark.server
def test_an_unknown_engine_fails_with_the_servers_message(mysql_db: Database) -> None:
    result = run_iibench("--db", mysql_db.url, "--engine", "NoSuchEngine", expect=1)

    assert "Unknown storage engine 'NoSuchEngine'" in result.stderr
    assert result.output.summary["error"] == "Unknown storage engine 'NoSuchEngine'"


def test_an_sql_error_mid_run_fails_with_the_servers_message(db: Database) -> None:
    proc = subprocess.Popen(
        [
            str(BINARY),
            "--db",
            db.url,
            "--rows",
            "1000000",
            "--max-rate",
            "5000",
            "--report-every",
            "1000",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:  # wait until rows are going in
        if line.startswith("1000\t"):
            break
    time.sleep(0.3)
    db.execute("DROP TABLE mypurchases")
    rest, stderr = proc.communicate(timeout=60)
    check_sanitizers(stderr)

    assert proc.returncode == 1
    summary = rest.splitlines()[-1]
    assert summary.startswith("# summary status=failed rows=")
    message = summary.split(" error=", 1)[1]
    assert "mypurchases" in message
    assert f"iibench: error: {message}" in stderr
