from __future__ import annotations

import pytest

from submissions.logparse import LogError, Marker, Totals
from testing.logs import fixture_text, parse_fixture, parse_text

HEADER_2023 = (
    "i_sec\tt_sec\ti_ips\tt_ips\ti_dps\tt_dps\ti_qps\tt_qps\tmax_i\tmax_d\tmax_q"
    "\tt_ins\tt_del\tt_query\tretry_i\tretry_d\tretry_q"
)


def report_2023(seconds: float, rows: int, interval: float = 10.0) -> str:
    rate = rows / seconds
    fields = [f"{interval:.1f}", f"{seconds:.1f}", f"{rate:.0f}", f"{rate:.0f}", *["0"] * 4]
    return "\t".join([*fields, "2", "0", "0", str(rows), *["0"] * 5])


def test_it_reads_the_2009_03_era_where_seconds_is_the_total():
    parsed = parse_fixture("python-2009-03.log")
    assert parsed.format == "python-iibench-2009-03"
    assert parsed.format_label == "Python iibench (March 2009)"
    assert list(parsed.series.rows) == [1_000_000, 2_000_000, 3_000_000]
    assert list(parsed.series.seconds) == [895.0, 1897.0, 2950.0]
    assert list(parsed.series.interval_rate) == [1116.9, 997.9, 949.9]
    assert list(parsed.series.cumulative_rate) == [1116.9, 1054.1, 1016.9]
    assert list(parsed.series.queries) == [5990, 53488, 101230]
    assert list(parsed.series.line) == [2, 3, 4]
    assert parsed.totals is None


def test_it_reads_2009_03b_seconds_as_intervals_when_the_rates_say_so():
    parsed = parse_fixture("python-2009-03b.log")
    assert parsed.format == "python-iibench-2009-03b"
    assert [round(s, 1) for s in parsed.series.seconds] == [895.3, 1897.4, 2950.1]
    assumption = [m for m in parsed.markers if m.kind == "assumption"]
    assert len(assumption) == 1
    assert assumption[0].line == 3
    assert "interval" in assumption[0].text


def test_it_reads_2009_03b_seconds_as_totals_when_the_rates_say_so():
    text = (
        "#rows #seconds cum_ips table_size last_ips #queries cum_qps last_qps\n"
        "1000000 895.3 1116.9 1000000 1116.9 5990 6.7 6.7\n"
        "2000000 1897.4 1054.1 2000000 997.9 53488 28.2 47.4\n"
    )
    parsed = parse_text(text)
    assert list(parsed.series.seconds) == [895.3, 1897.4]
    assert "total" in parsed.markers[0].text


def test_it_reads_the_2009_04_era_total_seconds_and_the_ddl_echo():
    parsed = parse_fixture("python-2009-04.log")
    assert parsed.format == "python-iibench-2009-04"
    assert list(parsed.series.rows) == [1_000_000, 2_000_000, 3_000_000]
    assert list(parsed.series.seconds) == [48.3, 99.4, 159.6]
    assert list(parsed.series.interval_rate) == [20699.6, 19565.6, 16614.1]
    assert list(parsed.series.line) == [3, 4, 5]
    assert parsed.parameters["engine"].value == "innodb"
    assert parsed.parameters["secondary_indexes"].value == 3
    assert parsed.parameters["secondary_indexes"].line == 2


def test_it_marks_indexes_created_after_the_load_in_2009_04():
    parsed = parse_fixture("python-2009-04-secondary-at-end.log")
    assert parsed.markers == [
        Marker("indexes_created_after_load", 5, "Created secondary indexes in 4.1 seconds"),
        Marker("done", 7, "Done"),
    ]
    assert parsed.parameters["indexes_after_load"].value is True
    assert parsed.totals == Totals(2_000_000, 16.8, 119047.6, "completed", 6)
    assert parsed.series.queries is None  # all zero: no query threads


def test_it_reads_the_2020_06_era():
    parsed = parse_fixture("python-2020-06.log")
    assert parsed.format == "python-iibench-2020-06"
    assert list(parsed.series.rows) == [642_000, 1_268_000, 1_861_000, 2_000_000]
    assert list(parsed.series.seconds) == [10.0, 20.0, 30.1, 32.3]
    assert parsed.parameters["report_every_seconds"].value == 10
    assert parsed.totals.rows == 2_000_000


def test_it_reads_max_i_as_the_worst_insert_latency_in_milliseconds():
    parsed = parse_fixture("python-2020-06.log")
    assert list(parsed.series.latency_max_ms) == [25.318, 25.318, 25.318, 25.318]
    # The Python tool prints no percentiles and no costs: those stay absent.
    assert parsed.series.latency_p99_ms is None
    assert parsed.series.db_size_bytes is None


def test_an_era_without_max_i_has_no_latency():
    assert parse_fixture("python-2009-04.log").series.latency_max_ms is None


def test_it_reads_the_2020_09_era_with_query_rates_and_retry_totals():
    parsed = parse_fixture("python-2020-09.log")
    assert parsed.format == "python-iibench-2020-09"
    assert list(parsed.series.queries) == [3812, 7602, 11501]
    assert list(parsed.series.interval_query_rate) == [381.0, 379.0, 386.0]
    assert parsed.series.deleted is None
    assert parsed.totals == Totals(1_000_000, 30.2, 33112.6, "completed", 9)


def test_it_reads_the_2023_era():
    parsed = parse_fixture("python-2023.log")
    assert parsed.format == "python-iibench-2023"
    assert parsed.format_label == "Python iibench (2023 to now)"
    assert list(parsed.series.rows) == [714_000, 1_000_000]
    assert list(parsed.series.seconds) == [10.0, 14.0]
    assert list(parsed.series.interval_rate) == [71400.0, 71500.0]
    assert list(parsed.series.cumulative_rate) == [71400.0, 71429.0]
    assert parsed.series.deleted is None and parsed.series.queries is None
    assert parsed.totals == Totals(1_000_000, 14.0, 71407.6, "completed", 6)
    assert parsed.line_count == 7
    assert parsed.cut_off_last_line is False


def test_it_keeps_deletes_and_queries_once_they_start():
    parsed = parse_fixture("python-2023-fifo-queries.log")
    series = parsed.series
    assert list(series.deleted) == [0, 0, 486_000, 988_000]
    assert list(series.interval_delete_rate) == [0.0, 0.0, 48119.0, 50200.0]
    assert list(series.queries) == [0, 4130, 8377, 12690]
    assert list(series.interval_query_rate) == [0.0, 413.0, 420.0, 431.0]
    assert parsed.totals.line == 13  # after the histograms and "Query thread:" line


def test_it_marks_indexes_created_after_the_load_in_2023():
    parsed = parse_fixture("python-2023-secondary-at-end.log")
    assert [m.kind for m in parsed.markers] == ["indexes_created_after_load", "done"]
    assert parsed.markers[0].line == 6
    assert parsed.parameters["indexes_after_load"] == parsed.parameters["indexes_after_load"]
    assert parsed.parameters["indexes_after_load"].value is True


def test_it_picks_columns_by_name_whatever_their_order():
    text = (
        "#rows #seconds #total_seconds table_size cum_ips last_ips #queries cum_qps last_qps\n"
        "1000000 48.3 48.3 1000000 20699.6 20699.6 0 0.0 0.0\n"
    )
    parsed = parse_text(text)
    assert parsed.format == "python-iibench-2009-04"
    assert list(parsed.series.cumulative_rate) == [20699.6]


def test_it_reads_parameters_from_an_echoed_command_line():
    text = (
        "$ python3 iibench.py --dbms=mysql --max_rows=1000000 --rows_per_commit=1000 "
        "--secs_per_report=1 --secondary_at_end --engine=innodb\n"
        + HEADER_2023
        + "\n"
        + report_2023(1.0, 100_000, 1.0)
        + "\n"
    )
    parsed = parse_text(text)
    stated = {key: (s.value, s.line) for key, s in parsed.parameters.items()}
    assert stated["target_rows"] == (1_000_000, 1)
    assert stated["rows_per_commit"] == (1000, 1)
    assert stated["report_every_seconds"] == (1, 1)
    assert stated["indexes_after_load"] == (True, 1)
    assert stated["engine"] == ("innodb", 1)
    assert stated["backend"] == ("mysql", 1)


def test_it_accepts_a_stall_where_rows_stay_the_same_in_time_based_reports():
    text = "\n".join([HEADER_2023, report_2023(10.0, 500_000), report_2023(20.0, 500_000), ""])
    parsed = parse_text(text)
    assert list(parsed.series.rows) == [500_000, 500_000]


def test_it_skips_the_noise_iibench_prints():
    text = "\n".join(
        [
            HEADER_2023,
            "Warning: (1265, \"Data truncated for column 'price' at row 1\")",
            report_2023(10.0, 700_000),
            "getmin trxid 1 in 0.001 seconds",
            "get_min_trxid = 1 in 0.001 seconds",
            "",
            report_2023(20.0, 1_400_000),
            "Query thread: 12 queries, fetched/query(expected, actual) = ( 10 , 10.000 )",
            "Done",
            "",
        ]
    )
    parsed = parse_text(text)
    assert list(parsed.series.line) == [3, 7]


def test_it_reads_a_report_whose_tabs_became_spaces():
    line = report_2023(10.0, 700_000).replace("\t", "  ")
    parsed = parse_text(HEADER_2023 + "\n" + line + "\n")
    assert list(parsed.series.rows) == [700_000]


def test_it_rejects_a_second_header():
    text = "\n".join([HEADER_2023, report_2023(10.0, 700_000), HEADER_2023, ""])
    with pytest.raises(LogError) as error:
        parse_text(text)
    assert str(error.value) == (
        "line 3: a second header: this file holds more than one run; upload one run per log"
    )


def test_it_rejects_a_header_of_unknown_columns():
    with pytest.raises(LogError) as error:
        parse_text("i_sec\tt_sec\ti_ips\tt_whatever\n")
    assert str(error.value).startswith(
        "line 1: a Python iibench header with columns this parser does not know"
    )


def test_it_reads_the_fixture_the_same_with_crlf_line_ends():
    plain = parse_fixture("python-2023.log")
    crlf = parse_fixture("python-2023-crlf.log")
    assert list(crlf.series.rows) == list(plain.series.rows)
    assert list(crlf.series.line) == list(plain.series.line)
    assert crlf.totals == plain.totals


def test_it_reads_the_totals_line_it_was_given_verbatim():
    assert "Totals: 14.0 secs" in fixture_text("python-2023.log")
    assert parse_fixture("python-2023.log").totals.seconds == 14.0


@pytest.mark.parametrize("value", ["nan", "inf", "-Infinity"])
def test_it_refuses_a_report_whose_row_count_is_not_finite_rather_than_skipping_it(value):
    header = "#rows #seconds #total_seconds cum_ips table_size last_ips #queries cum_qps last_qps"
    text = "\n".join(
        [
            header,
            "1000000 10.0 10.0 100000.0 1000000 100000.0 0 0.0 0.0",
            f"{value} 10.0 20.0 100000.0 2000000 100000.0 0 0.0 0.0",
            "",
        ]
    )
    with pytest.raises(LogError) as error:
        parse_text(text)
    assert str(error.value) == f"line 3: #rows {value!r} is not a whole number"
