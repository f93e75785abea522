"""The generated data: distributions, the price formula, the pseudo clock and
the seed (2008 contest data characteristics)."""

from __future__ import annotations

import pytest

from conftest import Database, run_iibench


def table_rows(db: Database) -> list[tuple]:
    rows = db.query(
        "SELECT dateandtime, cashregisterid, customerid, productid, price "
        "FROM mypurchases ORDER BY transactionid"
    )
    return [(str(d), c, cu, p, round(float(price), 2)) for d, c, cu, p, price in rows]


def test_values_are_uniform_in_the_contest_ranges(db: Database) -> None:
    run_iibench("--db", db.url, "--rows", "50000")

    rows = table_rows(db)
    cash = [r[1] for r in rows]
    customers = [r[2] for r in rows]
    products = [r[3] for r in rows]
    assert (min(cash), max(cash)) == (0, 999)
    assert len(set(cash)) == 1000
    assert min(customers) >= 0 and max(customers) <= 99999
    assert min(products) >= 0 and max(products) <= 9999
    assert sum(cash) / len(cash) == pytest.approx(499.5, abs=10)
    assert sum(customers) / len(customers) == pytest.approx(49999.5, abs=1000)
    assert sum(products) / len(products) == pytest.approx(4999.5, abs=100)
    deciles = [0] * 10
    for p in products:
        deciles[p // 1000] += 1
    assert all(4600 < n < 5400 for n in deciles), deciles


def test_price_is_customerid_over_100_plus_up_to_4_99(db: Database) -> None:
    run_iibench("--db", db.url, "--rows", "20000")

    offsets = [round(price * 100) - customer for _, _, customer, _, price in table_rows(db)]
    assert min(offsets) == 0
    assert max(offsets) == 499
    assert sum(offsets) / len(offsets) == pytest.approx(249.5, abs=8)


def test_the_clock_advances_one_second_every_100000_rows(db: Database) -> None:
    run_iibench(
        "--db", db.url, "--rows", "250000", "--rows-per-commit", "5000", "--rows-per-insert", "1000"
    )

    seconds = db.query(
        "SELECT dateandtime, COUNT(*), MIN(transactionid), MAX(transactionid) "
        "FROM mypurchases GROUP BY dateandtime ORDER BY dateandtime"
    )
    assert [(str(d), n, lo, hi) for d, n, lo, hi in seconds] == [
        ("2008-11-24 00:00:00", 100000, 1, 100000),
        ("2008-11-24 00:00:01", 100000, 100001, 200000),
        ("2008-11-24 00:00:02", 50000, 200001, 250000),
    ]


def test_start_time_sets_the_first_rows_date(db: Database) -> None:
    out = run_iibench(
        "--db", db.url, "--rows", "1000", "--start-time", "2020-02-29T23:59:59"
    ).output

    assert str(db.scalar("SELECT MIN(dateandtime) FROM mypurchases")) == "2020-02-29 23:59:59"
    assert out.params["start_time"] == "2020-02-29T23:59:59"


def test_the_same_seed_gives_the_same_rows(db: Database) -> None:
    run_iibench("--db", db.url, "--rows", "5000", "--seed", "7")
    first = db.query("SELECT * FROM mypurchases ORDER BY transactionid")
    run_iibench("--db", db.url, "--rows", "5000", "--seed", "7")
    again = db.query("SELECT * FROM mypurchases ORDER BY transactionid")
    run_iibench("--db", db.url, "--rows", "5000", "--seed", "8")
    other = db.query("SELECT * FROM mypurchases ORDER BY transactionid")

    assert first == again
    assert first != other


def test_writers_share_the_rows_of_a_single_writer(db: Database) -> None:
    """The data is a function of (seed, row number): the writers only change
    which connection inserts a row, not the rows."""
    run_iibench("--db", db.url, "--rows", "30000")
    single = sorted(table_rows(db))
    out = run_iibench("--db", db.url, "--rows", "30000", "--writers", "3").output

    assert sorted(table_rows(db)) == single
    assert out.params["writers"] == "3"
    assert out.summary["rows"] == "30000"
