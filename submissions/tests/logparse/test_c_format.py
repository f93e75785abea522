from __future__ import annotations

import math
from pathlib import Path

import pytest

from submissions.logparse import IndexInfo, LoadSummary, LogError, Marker, Totals, parse_log
from submissions.logparse.c_format import without_settings
from testing.logs import fixture_text, parse_fixture, parse_text

DEMO_LOGS = Path(__file__).parents[2] / "demo_logs"


def test_it_reads_a_completed_run_with_its_header_and_summary():
    parsed = parse_fixture("iibench-c-completed.log")
    assert parsed.format == "iibench-c"
    assert parsed.format_label == "iibench-c (this project's C benchmark)"
    values = {key: stated.value for key, stated in parsed.parameters.items()}
    assert values == {
        "benchmark_version": "1.0.0",
        "mode": "insert",
        "target_rows": 2_000_000,
        "rows_per_commit": 1000,
        "rows_per_insert": 1000,
        "report_every_rows": 1_000_000,
        "max_rate": 0,
        "seed": 42,
        "engine": "InnoDB",
        "pk": "autoinc",
        "writers": 1,
        "readers": 0,
        "query_threads": 0,
        "delete_after": 0,
        "backend": "mysql",
        "server_version": "10.11.19-MariaDB-0+deb12u1",
        "secondary_indexes": 3,
        "indexes_after_load": False,
    }
    assert parsed.parameters["target_rows"].line == 4
    assert list(parsed.series.rows) == [1_000_000, 2_000_000]
    assert list(parsed.series.seconds) == [15.012, 30.08]
    assert list(parsed.series.line) == [27, 28]
    assert parsed.series.deleted is None and parsed.series.queries is None
    assert parsed.totals == Totals(2_000_000, 30.101, 66442.9, "completed", 30)
    assert parsed.indexes[1] == IndexInfo(
        "marketsegment", ("price", "customerid"), False, "before_load", 22
    )
    assert parsed.markers == []


def test_it_marks_a_run_stopped_by_a_signal():
    parsed = parse_fixture("iibench-c-stopped.log")
    assert parsed.totals.status == "stopped"
    assert parsed.totals.rows == 3_104_000
    assert parsed.markers == [Marker("stopped", 32, "stopped by SIGTERM")]
    assert list(parsed.series.rows)[-1] == 3_104_000


def test_it_marks_a_failed_run_with_the_servers_message():
    parsed = parse_fixture("iibench-c-failed.log")
    assert parsed.totals == Totals(1_412_000, 22.31, None, "failed", 28)
    assert parsed.markers == [Marker("failed", 28, "Lost connection to server during query (2013)")]
    assert list(parsed.series.rows) == [1_000_000]


def test_it_reads_deletes_and_queries_of_a_fifo_run():
    parsed = parse_fixture("iibench-c-fifo-queries.log")
    assert parsed.parameters["backend"].value == "postgresql"
    assert parsed.parameters["delete_after"].value == 2_000_000
    assert parsed.parameters["secondary_indexes"].value == 3  # PostgreSQL names the PK _pkey
    assert parsed.indexes[0].primary and not parsed.indexes[1].primary
    assert list(parsed.series.deleted) == [0, 0, 1_000_000, 2_000_000]
    assert list(parsed.series.interval_delete_rate)[2] == 27248.0
    assert list(parsed.series.queries) == [412, 790, 1101, 1392]
    assert list(parsed.series.interval_query_rate) == [19.6, 16.1, 8.5, 7.4]


def test_it_reads_a_bulk_load_summary():
    parsed = parse_fixture("iibench-c-load.log")
    assert parsed.load == LoadSummary(
        rows=1_000_000,
        keys=4,
        row_length=64,
        seconds=12.345,
        rows_per_s=81004.5,
        kv_pairs_per_s=324018.0,
        mb_per_s=5.2,
        line=17,
    )
    assert parsed.parameters["mode"].value == "load"
    assert parsed.parameters["keys"].value == 4
    assert parsed.parameters["row_length"].value == 64
    assert len(parsed.series) == 0
    assert parsed.totals == Totals(1_000_000, 12.345, 81004.5, "completed", 17)


def test_it_states_indexes_created_after_the_load():
    parsed = parse_fixture("iibench-c-indexes-after-load.log")
    assert parsed.parameters["indexes_after_load"].value is True
    assert parsed.parameters["indexes_after_load"].line == 24
    assert [m.kind for m in parsed.markers] == ["indexes_created_after_load"] * 3
    assert parsed.markers[0].text == "index marketsegment was created after the load"


def test_it_tolerates_extra_comment_lines_and_key_values():
    text = (
        fixture_text("iibench-c-completed.log")
        .replace("# started", "# cpu model=whatever cores=2\n# started")
        .replace("queries=0", "queries=0 flush_seconds=0.021")
    )
    parsed = parse_text(text)
    assert parsed.totals.rows == 2_000_000


def test_it_refuses_a_newer_format():
    text = fixture_text("iibench-c-completed.log").replace("format=1", "format=4")
    with pytest.raises(LogError) as error:
        parse_text(text)
    assert str(error.value) == (
        "line 1: iibench-c output format 4; this registry reads formats 1, 2 and 3: "
        "rerun with the iibench-c this registry ships"
    )


def test_it_rejects_a_report_line_with_a_missing_column():
    text = fixture_text("iibench-c-completed.log").replace(
        "1000000\t15.012\t66613.4", "1000000\t15.012"
    )
    with pytest.raises(LogError) as error:
        parse_text(text)
    assert str(error.value) == (
        "line 27: a report line with 7 columns where the column header (line 26) has 8: "
        "was the log cut or edited?"
    )


def test_it_rejects_a_report_after_the_summary():
    text = fixture_text("iibench-c-completed.log") + "3000000\t45.0\t1.0\t1.0\t0\t0.0\t0\t0.0\n"
    with pytest.raises(LogError) as error:
        parse_text(text)
    assert str(error.value).startswith("line 31: a report after the summary (line 30)")


def test_it_rejects_text_where_a_report_belongs():
    text = fixture_text("iibench-c-completed.log").replace("# flushed", "flushed")
    with pytest.raises(LogError) as error:
        parse_text(text)
    assert str(error.value) == "line 29: expected a report line, found 'flushed tables in 0.021 s'"


def test_it_ignores_a_summary_cut_off_without_its_newline():
    text = fixture_text("iibench-c-completed.log")
    cut = text[: text.index("status=completed rows=2000000") + len("status=comp")]
    parsed = parse_text(cut)
    assert parsed.cut_off_last_line is True
    assert parsed.totals is None
    assert list(parsed.series.rows) == [1_000_000, 2_000_000]


def test_it_reads_a_seed_as_large_as_the_benchmark_takes():
    text = fixture_text("iibench-c-completed.log").replace(
        "# param seed=42", "# param seed=18446744073709551615"
    )
    assert parse_text(text).parameters["seed"].value == 2**64 - 1


@pytest.mark.parametrize(
    ("stated", "shown"),
    [("-1000", "-1,000"), ("18446744073709551616", "18,446,744,073,709,551,616")],
)
def test_it_rejects_a_parameter_the_benchmark_cannot_print(stated, shown):
    text = fixture_text("iibench-c-completed.log").replace(
        "# param rows_per_commit=1000", f"# param rows_per_commit={stated}"
    )
    with pytest.raises(LogError) as error:
        parse_text(text)
    assert str(error.value) == (
        f"line 5: param rows_per_commit={shown} is out of the benchmark's range "
        "(0 to 18,446,744,073,709,551,615): was the line edited?"
    )


def test_an_engine_printed_on_sqlite_or_postgresql_is_not_kept():
    # Logs of older builds printed `# param engine=InnoDB` on every backend.
    for name in ("c-fifo-sqlite-500k.log", "c-fifo-postgresql-500k.log", "c-fifo-mariadb-500k.log"):
        path = DEMO_LOGS / name
        assert "# param engine=InnoDB" in path.read_text()
        parsed = parse_log(path.open("rb"))
        assert ("engine" in parsed.parameters) == name.startswith("c-fifo-mariadb"), name


def test_format_2_reads_the_cost_columns_and_a_dash_as_unmeasured():
    text = fixture_text("iibench-c-format2-mariadb.log")
    reports = [line for line in text.splitlines() if line[:1].isdigit()]
    fields = reports[1].split("\t")
    fields[12] = "-"  # server_cpu_s
    parsed = parse_text(text.replace(reports[1], "\t".join(fields)))
    series = parsed.series
    assert series.server_cpu_s[0] == float(reports[0].split("\t")[12])
    assert math.isnan(series.server_cpu_s[1])
    assert series.db_size_bytes[-1] == float(reports[-1].split("\t")[18])
    assert parsed.machine["data_filesystem"].value == "ext4"
    assert parsed.settings["innodb_buffer_pool_size"].value == "134217728"


def test_format_2_names_the_cost_column_that_holds_no_number():
    text = fixture_text("iibench-c-format2-mariadb.log")
    report = next(line for line in text.splitlines() if line.startswith("40000\t"))
    fields = report.split("\t")
    fields[9] = "fast"  # latency_p99_ms
    with pytest.raises(LogError) as error:
        parse_text(text.replace(report, "\t".join(fields)))
    line = text.splitlines().index(report) + 1
    assert str(error.value) == f"line {line:,}: latency_p99_ms 'fast' is not a number"


def test_format_2_refuses_a_negative_cost():
    text = fixture_text("iibench-c-format2-mariadb.log")
    report = next(line for line in text.splitlines() if line.startswith("40000\t"))
    fields = report.split("\t")
    fields[15] = "-5"  # write_bytes
    with pytest.raises(LogError, match="the bytes written is -5"):
        parse_text(text.replace(report, "\t".join(fields)))


def test_a_log_without_its_settings_has_the_same_reports_on_the_same_lines():
    text = fixture_text("iibench-c-mariadb-100k-cadence.log")
    whole, light = parse_text(text), parse_text(without_settings(text))

    assert without_settings(text).count("\n") == text.count("\n")
    assert "# setting " not in without_settings(text)
    assert list(light.series.line) == list(whole.series.line)
    assert list(light.series.rows) == list(whole.series.rows)
    assert list(light.series.seconds) == list(whole.series.seconds)
    assert without_settings("1000\t1.0\n") == "1000\t1.0\n"
