from __future__ import annotations

import pytest

from submissions.logparse import LogError, Totals
from submissions.logparse.java_iibench import grouped_float, grouped_int
from testing.logs import fixture_text, parse_fixture, parse_text

EN_ROWS = [653_000, 1_101_250, 1_402_500, 1_610_750, 1_752_000, 1_855_250, 1_934_500, 1_996_250]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("99,950.05", 99950.05),  # en_US
        ("99.950,05", 99950.05),  # de_DE
        ("99\u202f950,05", 99950.05),  # fr_FR, Java 13+
        ("99\u00a0950,05", 99950.05),  # fr_FR, older Java
        ("99'950.05", 99950.05),  # de_CH
        ("26288,39", 26288.39),  # the TSV: %.2f, no grouping
        ("1,000.00", 1000.0),
        ("0.00", 0.0),
        ("0,00", 0.0),
    ],
)
def test_it_reads_two_decimal_numbers_in_any_locale(text, value):
    assert grouped_float(text) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1,000,000", 1_000_000),
        ("1.000.000", 1_000_000),
        ("1\u202f000\u202f000", 1_000_000),
        ("5", 5),
    ],
)
def test_it_reads_grouped_integers_in_any_locale(text, value):
    assert grouped_int(text) == value


def test_it_reads_the_english_console():
    parsed = parse_fixture("java-iibench-en.log")
    assert parsed.format == "java-iibench"
    assert list(parsed.series.rows) == [*EN_ROWS, 2_000_000]
    assert list(parsed.series.seconds) == [5, 10, 15, 20, 25, 30, 35, 40, 40]
    assert parsed.series.cumulative_rate[0] == 130495.6
    assert parsed.series.interval_rate[-1] == 9640.1
    assert parsed.series.interval_query_rate is None  # no queries ran
    assert parsed.totals == Totals(2_000_000, 40.0, 49512.3, "completed", 39)
    values = {key: stated.value for key, stated in parsed.parameters.items()}
    assert values == {
        "writers": 4,
        "target_rows": 2_000_000,
        "secondary_indexes": 3,
        "rows_per_insert": 250,
        "report_every_seconds": 5,
        "query_threads": 0,
        "backend": "mysql",
        "engine": "innodb",
    }
    assert parsed.parameters["rows_per_insert"].line == 8


def test_it_reads_the_german_console_with_java_19_thread_names_the_same():
    english = parse_fixture("java-iibench-en.log")
    german = parse_fixture("java-iibench-de.log")
    assert german.format == "java-iibench"
    assert list(german.series.rows) == list(english.series.rows)
    assert list(german.series.cumulative_rate) == list(english.series.cumulative_rate)
    assert list(german.series.interval_rate) == list(english.series.interval_rate)
    assert german.parameters == english.parameters
    assert german.totals == english.totals


def test_it_reads_timestamped_lines_and_queries_per_second():
    parsed = parse_fixture("java-iibench-mongodb-timestamps.log")
    assert list(parsed.series.rows) == [999_500, 1_899_000, 2_689_500, 3_412_000]
    assert list(parsed.series.interval_query_rate) == [0.0, 0.0, 0.98, 1.0]
    assert parsed.series.queries is None  # Java prints rates, not counts
    assert parsed.parameters["backend"].value == "mongodb"
    assert parsed.parameters["rows_per_insert"].value == 1000
    assert parsed.parameters["target_rows"].value == 1_000_000_000
    assert parsed.totals is None  # no "Done!": the run was still going


def test_it_converts_queries_per_minute_to_per_second():
    line = (
        "Thread[Thread-0,5,main]10,000 inserts : 10 seconds : cum ips=1,000.00 : "
        "int ips=1,000.00 : cum avg qry=2.00 : int avg qry=2.00 : cum avg qpm=120.00 : "
        "int avg qpm=120.00 : exceptions=0\n"
    )
    parsed = parse_text("Thread[main,5,main]Application Parameters\n" + line)
    assert list(parsed.series.interval_query_rate) == [2.0]


def test_it_marks_insert_exceptions():
    text = fixture_text("java-iibench-en.log").replace(
        "int avg qpm=0.00 : exceptions=0\nThread[Thread-0,5,main]1,934,500",
        "int avg qpm=0.00 : exceptions=3\nThread[Thread-0,5,main]1,934,500",
    )
    parsed = parse_text(text)
    assert [(m.kind, m.line, m.text) for m in parsed.markers if m.kind != "load_started"] == [
        ("insert_exceptions", 35, "3 insert exceptions so far")
    ]


def test_it_rejects_a_repeated_periodic_report():
    lines = fixture_text("java-iibench-en.log").split("\n")
    lines.insert(33, lines[32])
    with pytest.raises(LogError) as error:
        parse_text("\n".join(lines))
    assert str(error.value) == "line 34: this report repeats line 33: remove the repeated line"


def test_it_rejects_inserts_that_go_down():
    text = fixture_text("java-iibench-en.log").replace("1,402,500 inserts", "1,002,500 inserts")
    with pytest.raises(LogError) as error:
        parse_text(text)
    assert str(error.value) == (
        "line 32: rows went down from 1,101,250 to 1,002,500 (line 31): "
        "upload one run per log, as the benchmark printed it"
    )


def test_it_rejects_a_report_without_its_rates():
    text = (
        "Thread[main,5,main]Application Parameters\n"
        "Thread[Thread-0,5,main]1,000 inserts : 5 seconds\n"
    )
    with pytest.raises(LogError) as error:
        parse_text(text)
    assert str(error.value) == (
        "line 2: a report line without cum ips, int ips: was the log cut or edited?"
    )


def test_it_reads_the_tsv_file_with_decimal_commas_and_a_short_last_line():
    parsed = parse_fixture("java-iibench-de.tsv")
    assert parsed.format == "java-iibench-tsv"
    assert list(parsed.series.rows) == [653_000, 1_101_250, 1_402_500, 1_610_750, 1_616_000]
    assert list(parsed.series.seconds) == [5, 10, 15, 20, 20]
    assert parsed.series.cumulative_rate[0] == 130495.6
    assert parsed.series.interval_rate[-1] == 16990.29


def test_it_rejects_a_short_tsv_line_in_the_middle():
    lines = fixture_text("java-iibench-de.tsv").split("\n")
    lines[2] = lines[2].rsplit("\t", 1)[0]
    with pytest.raises(LogError) as error:
        parse_text("\n".join(lines))
    assert str(error.value) == (
        "line 3: 8 columns where the header has 9; only the last line may lack the "
        "exceptions column"
    )


def test_a_real_console_and_its_tsv_file_agree():
    console = parse_fixture("java-iibench-real-en.log")
    tsv = parse_fixture("java-iibench-real-en.tsv")
    assert len(console.series) == 18
    assert list(console.series.rows) == list(tsv.series.rows)
    assert list(console.series.seconds) == list(tsv.series.seconds)
    assert list(console.series.cumulative_rate) == list(tsv.series.cumulative_rate)
    assert console.totals == Totals(2_000_000, 89.0, 22427.81, "completed", 48)
    assert console.parameters["max_rate"].value == 10_000_000


def test_a_real_french_console_groups_digits_with_narrow_spaces():
    parsed = parse_fixture("java-iibench-real-fr.log")
    assert "1\u202f000\u202f000 inserts" in fixture_text("java-iibench-real-fr.log")
    assert list(parsed.series.rows) == [205_000, 634_000, 987_000, 1_000_000]
    assert parsed.series.cumulative_rate[-1] == 65053.34
    assert parsed.parameters["target_rows"].value == 1_000_000
    assert parsed.parameters["max_rate"].value == 10_000_000


def test_a_real_german_tsv_has_decimal_commas():
    parsed = parse_fixture("java-iibench-real-de.tsv")
    assert list(parsed.series.rows) == [392_500, 695_750, 992_000, 1_000_000]
    assert list(parsed.series.interval_rate) == [77722.77, 60252.33, 59108.14, 39408.87]


def test_it_reads_the_secondary_indexes_created_before_the_writers_start():
    parsed = parse_text(fixture_text("java-iibench-real-en.log"))
    assert [(index.name, index.columns, index.created, index.line) for index in parsed.indexes] == [
        ("marketsegment", ("price", "customerid"), "before_load", 21),
        ("registersegment", ("cashregisterid", "price", "customerid"), "before_load", 22),
        ("pdc", ("price", "dateandtime", "customerid"), "before_load", 23),
    ]
    started = [m for m in parsed.markers if m.kind == "load_started"]
    assert [m.line for m in started] == [26]
