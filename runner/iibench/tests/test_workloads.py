"""The seeds' other workloads: FIFO deletes (002), query threads (001),
primary-key kinds, writers and readers (004), throttling (003)."""

from __future__ import annotations

import re

import pytest

from conftest import Database, run_iibench


def test_fifo_keeps_the_table_at_n_rows(db: Database) -> None:
    out = run_iibench(
        "--db", db.url, "--rows", "20000", "--delete-after", "5000", "--report-every", "5000"
    ).output

    assert db.scalar("SELECT COUNT(*) FROM mypurchases") == 5000
    assert db.scalar("SELECT MIN(transactionid) FROM mypurchases") == 15001
    assert [(r.rows, r.deleted) for r in out.reports] == [
        (5000, 0),
        (10000, 5000),
        (15000, 10000),
        (20000, 15000),
    ]
    assert all(r.interval_dps > 0 for r in out.reports[1:])
    assert out.summary["deleted"] == "15000"
    assert out.params["delete_after"] == "5000"


def test_fifo_deletes_with_the_batch_that_crosses_n(db: Database) -> None:
    run_iibench(
        "--db", db.url, "--rows", "7500", "--delete-after", "2500", "--rows-per-commit", "1000"
    )

    assert db.scalar("SELECT COUNT(*) FROM mypurchases") == 2500
    assert db.scalar("SELECT MIN(transactionid) FROM mypurchases") == 5001


def test_query_threads_report_queries(db: Database) -> None:
    out = run_iibench(
        "--db",
        db.url,
        "--rows",
        "20000",
        "--max-rate",
        "20000",
        "--report-every",
        "5000",
        "--query-threads",
        "2",
    ).output

    assert int(out.summary["queries"]) > 0
    assert out.reports[-1].queries == int(out.summary["queries"])
    assert any(r.interval_qps > 0 for r in out.reports)
    assert out.params["query_threads"] == "2"
    assert db.scalar("SELECT COUNT(*) FROM mypurchases") == 20000


def test_readers_report_range_scans(db: Database) -> None:
    out = run_iibench(
        "--db",
        db.url,
        "--rows",
        "20000",
        "--max-rate",
        "20000",
        "--report-every",
        "5000",
        "--readers",
        "2",
        "--reader-pause-ms",
        "10",
    ).output

    # Two readers pausing 10 ms each for about a second.
    assert int(out.summary["queries"]) >= 10
    assert any(r.interval_qps > 0 for r in out.reports)
    assert out.params["readers"] == "2"
    assert out.params["reader_pause_ms"] == "10"


UUID4 = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")


def pk_type(db: Database) -> str:
    if db.kind == "mysql":
        return db.scalar(
            "SELECT column_type FROM information_schema.columns WHERE table_schema = DATABASE() "
            "AND table_name = 'mypurchases' AND column_name = 'transactionid'"
        )
    if db.kind == "postgresql":
        return db.scalar(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
            "WHERE attrelid = 'mypurchases'::regclass AND attname = 'transactionid'"
        )
    return next(r[2] for r in db.query("PRAGMA table_info(mypurchases)") if r[1] == "transactionid")


def test_uuid_char_keys_are_random_type_4_uuids(db: Database) -> None:
    out = run_iibench(
        "--db", db.url, "--rows", "5000", "--pk", "uuid-char", "--writers", "2"
    ).output

    keys = [row[0] for row in db.query("SELECT transactionid FROM mypurchases")]
    assert len(keys) == len(set(keys)) == 5000
    assert all(UUID4.fullmatch(key) for key in keys)
    assert pk_type(db).lower() in {"char(36)", "character(36)"}
    assert [ix.unique for ix in out.indexes] == [True, True, True, True]
    assert all(ix.columns[-1] == "transactionid" for ix in out.indexes)


def test_uuid_ordered_keys_follow_the_insertion_order(db: Database) -> None:
    out = run_iibench("--db", db.url, "--rows", "5000", "--pk", "uuid-ordered").output

    rows = db.query("SELECT transactionid, dateandtime FROM mypurchases ORDER BY transactionid")
    keys = [bytes(key) for key, _ in rows]
    assert len(set(keys)) == 5000
    assert all(len(key) == 16 and key[0] >> 4 == 1 for key in keys)  # type 1, time_hi first
    dates = [str(d) for _, d in rows]
    assert dates == sorted(dates)
    assert pk_type(db).lower() in {"binary(16)", "bytea", "blob"}
    assert [ix.unique for ix in out.indexes] == [True, True, True, True]


def test_fifo_works_with_ordered_uuids(db: Database) -> None:
    run_iibench("--db", db.url, "--rows", "6000", "--pk", "uuid-ordered", "--delete-after", "2000")

    assert db.scalar("SELECT COUNT(*) FROM mypurchases") == 2000


def test_writers_commit_their_own_batches(db: Database) -> None:
    out = run_iibench(
        "--db", db.url, "--rows", "40000", "--writers", "4", "--report-every", "10000"
    ).output

    assert db.scalar("SELECT COUNT(*) FROM mypurchases") == 40000
    assert [r.rows for r in out.reports] == [10000, 20000, 30000, 40000]


def test_max_rate_throttles_the_inserts(db: Database) -> None:
    out = run_iibench(
        "--db",
        db.url,
        "--rows",
        "4000",
        "--max-rate",
        "4000",
        "--rows-per-commit",
        "100",
        "--rows-per-insert",
        "100",
    ).output

    # The last batch (rows 3900..3999) may not start before 3900/4000 s.
    assert float(out.summary["seconds"]) >= 0.97
    assert float(out.summary["average_ips"]) <= 4200
    assert out.params["max_rate"] == "4000"


@pytest.mark.server
def test_blackhole_accepts_rows_without_storing_them(mysql_db: Database) -> None:
    engines = dict(mysql_db.query("SELECT engine, support FROM information_schema.engines"))
    if engines.get("BLACKHOLE") not in {"YES", "DEFAULT"}:
        mysql_db.execute("INSTALL SONAME 'ha_blackhole'")

    out = run_iibench("--db", mysql_db.url, "--rows", "10000", "--engine", "BLACKHOLE").output

    assert out.summary["rows"] == "10000"
    assert mysql_db.scalar("SELECT COUNT(*) FROM mypurchases") == 0
