"""The --db URL, in the forms django-environ reads."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from conftest import Database, mysql_params, run_iibench


def test_three_slashes_make_a_path_relative_to_the_working_directory(tmp_path: Path) -> None:
    run_iibench("--db", "sqlite:///relative.db", "--rows", "1000", cwd=tmp_path)

    conn = sqlite3.connect(tmp_path / "relative.db")
    assert conn.execute("SELECT COUNT(*) FROM mypurchases").fetchone() == (1000,)
    conn.close()


def test_four_slashes_make_an_absolute_path(tmp_path: Path) -> None:
    out = run_iibench(
        "--db", f"sqlite:///{tmp_path}/abs.db", "--rows", "1000", cwd=Path("/")
    ).output

    assert (tmp_path / "abs.db").exists()
    assert out.params["db"] == f"sqlite:///{tmp_path}/abs.db"


@pytest.mark.parametrize(
    "url,message",
    [
        ("sqlite://", "expected sqlite:///relative.db"),
        ("sqlite:///:memory:", "cannot be shared"),
        ("mysql://root@127.0.0.1:99999/x", "malformed"),
        ("postgresql://root@127.0.0.1/x?sslmode=require", "query parameters are not supported"),
        ("mysql://root@127.0.0.1:3306/db/extra", "a database name is required"),
    ],
)
def test_malformed_urls_exit_2(url: str, message: str) -> None:
    result = run_iibench("--db", url, expect=2)

    assert message in result.stderr
    assert "Try 'iibench --help'" in result.stderr


@pytest.mark.server
def test_a_percent_encoded_password_reaches_the_server(mysql_db: Database) -> None:
    params = mysql_params(mysql_db.url)
    password = "p@ss:w/rd%"
    mysql_db.execute("DROP USER IF EXISTS 'iibench_pw'@'%'")
    mysql_db.execute(f"CREATE USER 'iibench_pw'@'%' IDENTIFIED BY '{password}'")
    mysql_db.execute(f"GRANT ALL ON `{params['database']}`.* TO 'iibench_pw'@'%'")
    try:
        url = (
            f"mysql://iibench_pw:p%40ss%3Aw%2Frd%25@{params['host']}:{params['port']}/"
            f"{params['database']}"
        )
        result = run_iibench("--db", url, "--rows", "1000")
    finally:
        mysql_db.execute("DROP USER IF EXISTS 'iibench_pw'@'%'")

    assert mysql_db.scalar("SELECT COUNT(*) FROM mypurchases") == 1000
    assert password not in result.stdout
    assert "mysql://iibench_pw:***@" in result.stdout
    # Without the RELOAD privilege the run completes and says the flush was skipped.
    assert "# flush skipped: Access denied" in result.stdout
    assert result.output.summary["status"] == "completed"
