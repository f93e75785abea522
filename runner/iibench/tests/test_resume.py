"""--resume continues an interrupted run's table: the rows, the pseudo-clock and the report
cadence go on from what the table holds, the clock from --resume-seconds, and the output says
where it resumed. What a rerun whose worker restarted runs."""

from __future__ import annotations

import sqlite3

from conftest import Database, run_iibench


def insert(db: Database, rows: int, *extra: str):
    return run_iibench("--db", db.url, "--rows", str(rows), "--report-every", "2000", *extra)


def test_a_resumed_run_continues_the_rows_the_reports_and_the_clock(db: Database):
    first = insert(db, 6000).output
    stopped_at = first.reports[-1].seconds

    resumed = insert(db, 10000, "--resume", "--resume-seconds", f"{stopped_at:.3f}").output

    assert resumed.comments["resumed"] == f"at row 6000 seconds={stopped_at:.3f}"
    assert resumed.params["resume"] == "yes"
    assert [r.rows for r in resumed.reports] == [8000, 10000]
    assert resumed.reports[0].seconds > stopped_at
    assert resumed.reports[0].interval_ips > 0
    assert resumed.summary["status"] == "completed"
    assert resumed.summary["rows"] == "10000"
    assert db.scalar("SELECT COUNT(*) FROM mypurchases") == 10000
    assert db.scalar("SELECT MAX(transactionid) FROM mypurchases") == 10000


def test_resumed_rows_are_the_rows_a_whole_run_inserts(sqlite_db: Database, tmp_path):
    # Rows are a function of (seed, row index): the pseudo-clock moves every 100,000 rows.
    insert(sqlite_db, 60_000)
    insert(sqlite_db, 130_000, "--resume")
    resumed = sqlite_db.query(
        "SELECT SUM(customerid), SUM(cashregisterid), MAX(dateandtime), COUNT(*) FROM mypurchases"
    )
    whole = Database("sqlite", f"sqlite:///{tmp_path}/whole.db", sqlite_db.connect)
    run_iibench("--db", whole.url, "--rows", "130000", "--report-every", "50000")
    with sqlite3.connect(tmp_path / "whole.db") as conn:
        expected = conn.execute(
            "SELECT SUM(customerid), SUM(cashregisterid), MAX(dateandtime), COUNT(*) "
            "FROM mypurchases"
        ).fetchall()
    assert resumed == expected


def test_a_resumed_fifo_run_counts_the_rows_it_deleted(sqlite_db: Database):
    insert(sqlite_db, 5000, "--delete-after", "2000")
    resumed = insert(sqlite_db, 8000, "--delete-after", "2000", "--resume").output
    assert resumed.comments["resumed"].startswith("at row 5000 ")
    assert resumed.summary["deleted"] == "6000"
    assert sqlite_db.scalar("SELECT COUNT(*) FROM mypurchases") == 2000


def test_resume_without_a_table_says_there_is_nothing_to_continue(sqlite_db: Database):
    result = run_iibench("--db", sqlite_db.url, "--rows", "1000", "--resume", expect=1)
    assert "--resume: there is no table mypurchases" in result.stderr
    assert result.output.summary["status"] == "failed"


def test_resume_seconds_alone_is_a_usage_error(sqlite_db: Database):
    result = run_iibench("--db", sqlite_db.url, "--resume-seconds", "3", expect=2)
    assert "--resume-seconds goes with --resume" in result.stderr
