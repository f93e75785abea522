"""The classic run (2008 contest): rows, indexes, and the output format."""

from __future__ import annotations

import re

import pytest

from conftest import Database, run_iibench

FORMAT_PARAMS = [
    "mode",
    "rows",
    "rows_per_commit",
    "rows_per_insert",
    "report_every",
    "max_rate",
    "seed",
    "engine",
    "pk",
    "writers",
    "readers",
    "reader_pause_ms",
    "query_threads",
    "delete_after",
    "start_time",
]
CLASSIC_INDEXES = {
    "PRIMARY": ["transactionid"],
    "marketsegment": ["price", "customerid"],
    "registersegment": ["cashregisterid", "price", "customerid"],
    "pdc": ["price", "dateandtime", "customerid"],
}


def catalog_indexes(db: Database) -> set[str]:
    if db.kind == "mysql":
        rows = db.query("SHOW INDEX FROM mypurchases")
        return {row[2] for row in rows}
    if db.kind == "postgresql":
        rows = db.query("SELECT indexname FROM pg_indexes WHERE tablename = 'mypurchases'")
        return {"PRIMARY" if name.endswith("_pkey") else name for (name,) in rows}
    rows = db.query("SELECT name FROM sqlite_master WHERE type = 'index'")
    return {"PRIMARY"} | {name for (name,) in rows}


def test_it_inserts_every_row_and_reports_every_n_rows(db: Database) -> None:
    out = run_iibench("--db", db.url, "--rows", "25000", "--report-every", "10000").output

    assert db.scalar("SELECT COUNT(*) FROM mypurchases") == 25000
    assert [r.rows for r in out.reports] == [10000, 20000, 25000]
    assert out.summary["status"] == "completed"
    assert out.summary["rows"] == "25000"


def test_the_indexes_exist_before_the_first_row(db: Database) -> None:
    out = run_iibench("--db", db.url, "--rows", "3000").output

    assert {ix.name: ix.columns for ix in out.indexes} == CLASSIC_INDEXES
    assert all(ix.created == "before_load" for ix in out.indexes)
    assert [ix.unique for ix in out.indexes] == [True, False, False, False]
    first_index_line = next(i for i, line in enumerate(out.lines) if line.startswith("# index"))
    assert first_index_line < out.column_header_index
    assert catalog_indexes(db) == set(CLASSIC_INDEXES)


def test_the_header_describes_the_run(db: Database) -> None:
    out = run_iibench("--db", db.url, "--rows", "2000").output

    assert out.lines[0] == "# iibench-c version=1.2.0 format=3"
    assert out.lines[1].startswith("# command iibench --db ")
    expected = [name for name in FORMAT_PARAMS if name != "engine" or db.kind == "mysql"]
    assert list(out.params)[: len(expected)] == expected
    # The storage engine applies only on MySQL/MariaDB: never printed elsewhere.
    assert ("engine" in out.params) == (db.kind == "mysql")
    assert out.params["rows_per_commit"] == "1000"
    assert out.params["rows_per_insert"] == "1000"
    assert out.params["report_every"] == "1000000"
    assert out.params["start_time"] == "2008-11-24T00:00:00"
    assert out.comments["backend"] == db.kind
    assert out.comments["server"]
    assert out.comments["table"] == "mypurchases"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", out.comments["started"])


def test_report_lines_and_summary_agree_with_their_own_figures(db: Database) -> None:
    out = run_iibench(
        "--db",
        db.url,
        "--rows",
        "12500",
        "--report-every",
        "5000",
        "--rows-per-commit",
        "500",
        "--rows-per-insert",
        "250",
    ).output

    # The eight columns of format 1, then the cost columns (three-decimal figures, whole
    # counts, or "-" where the run cannot measure).
    line = re.compile(
        r"\d+\t\d+\.\d{3}\t\d+\.\d\t\d+\.\d\t\d+\t\d+\.\d\t\d+\t\d+\.\d"
        r"(\t(\d+\.\d{3}|-)){5}(\t(\d+|-)){6}\t(\d+\.\d{3}|-)"
    )
    for report in out.reports:
        assert line.fullmatch("\t".join(report.text))
        assert report.cumulative_ips == round(report.rows / report.seconds, 1)
    seconds = [r.seconds for r in out.reports]
    assert seconds == sorted(seconds)
    summary = out.summary
    rows, secs = int(summary["rows"]), float(summary["seconds"])
    assert float(summary["average_ips"]) == round(rows / secs, 1)
    assert secs == out.reports[-1].seconds
    assert out.lines[-1].startswith("# summary status=completed rows=12500 ")
    assert "client_cpu" in out.comments


def test_the_command_line_hides_the_password() -> None:
    result = run_iibench("--db", "mysql://root:s3cret@127.0.0.1:1/x", expect=2)

    assert "s3cret" not in result.stdout + result.stderr
    assert "# command iibench --db mysql://root:***@127.0.0.1:1/x" in result.stdout


@pytest.mark.server
def test_mysql_flushes_tables_at_the_end(mysql_db: Database) -> None:
    out = run_iibench("--db", mysql_db.url, "--rows", "2000").output

    flushed = [line for line in out.lines if line.startswith("# flushed tables in ")]
    assert len(flushed) == 1
    assert re.fullmatch(r"# flushed tables in \d+\.\d{3} s", flushed[0])
    assert out.lines.index(flushed[0]) < len(out.lines) - 1  # before the summary


@pytest.mark.server
def test_engine_picks_the_mysql_storage_engine(mysql_db: Database) -> None:
    out = run_iibench("--db", mysql_db.url, "--rows", "2000", "--engine", "MyISAM").output

    engine = mysql_db.scalar(
        "SELECT engine FROM information_schema.tables "
        "WHERE table_schema = DATABASE() AND table_name = 'mypurchases'"
    )
    assert engine == "MyISAM"
    assert out.params["engine"] == "MyISAM"
    assert mysql_db.scalar("SELECT COUNT(*) FROM mypurchases") == 2000


@pytest.mark.server
@pytest.mark.parametrize("engine", ["Aria", "MyISAM", "InnoDB"])
def test_the_table_engine_is_read_back_from_the_catalog(mysql_db: Database, engine: str) -> None:
    out = run_iibench("--db", mysql_db.url, "--rows", "1000", "--engine", engine).output

    assert f"# table_engine {engine}" in out.lines
    assert out.lines.index(f"# table_engine {engine}") < out.lines.index(
        next(line for line in out.lines if line.startswith("# started "))
    )


@pytest.mark.server
def test_an_engine_the_server_lacks_stops_the_run_naming_it(mysql_db: Database) -> None:
    result = run_iibench(
        "--db", mysql_db.url, "--rows", "1000", "--engine", "NOSUCHENGINE", expect=None
    )

    assert result.returncode != 0
    assert "NOSUCHENGINE" in result.stderr
    assert "# summary status=failed" in result.stdout
