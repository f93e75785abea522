from __future__ import annotations

import pytest

from submissions.logparse import LogError
from testing.logs import fixture_text, parse_fixture, parse_text


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("python-2009-03.log", "python-iibench-2009-03"),
        ("python-2009-03b.log", "python-iibench-2009-03b"),
        ("python-2009-04.log", "python-iibench-2009-04"),
        ("python-2020-06.log", "python-iibench-2020-06"),
        ("python-2020-09.log", "python-iibench-2020-09"),
        ("python-2023.log", "python-iibench-2023"),
        ("python-2023.log.gz", "python-iibench-2023"),
        ("java-iibench-en.log", "java-iibench"),
        ("java-iibench-de.log", "java-iibench"),
        ("java-iibench-mongodb-timestamps.log", "java-iibench"),
        ("java-iibench-de.tsv", "java-iibench-tsv"),
        ("sysbench-iibench.log", "sysbench-iibench"),
        ("iibench-c-completed.log", "iibench-c"),
        ("iibench-c-load.log", "iibench-c"),
        ("metrics-console.log", "metrics-console"),
        ("metrics-console-seed004.md", "metrics-console"),
    ],
)
def test_it_tells_each_implementation_by_its_content(name, fmt):
    assert parse_fixture(name).format == fmt


def test_it_does_not_look_at_the_file_name():
    # The same bytes under any name (parse_log never sees one) give the same format.
    assert parse_text(fixture_text("iibench-c-completed.log")).format == "iibench-c"


def test_it_refuses_what_is_not_an_iibench_log_naming_the_first_wrong_line():
    with pytest.raises(LogError) as error:
        parse_text("\n\nPING 127.0.0.1 (127.0.0.1) 56(84) bytes of data.\n")
    message = str(error.value)
    assert message.startswith("line 3: not an iiBench log: expected a header such as ")
    assert message.endswith("found 'PING 127.0.0.1 (127.0.0.1) 56(84) bytes of data.'")


def test_it_cuts_a_long_wrong_line_in_its_message():
    with pytest.raises(LogError) as error:
        parse_text("x" * 5000 + "\n")
    found = str(error.value).split("found ", 1)[1]
    assert len(found) < 90
    assert found.endswith("…'")


def test_it_accepts_a_command_line_and_runtime_notices_before_the_header():
    text = (
        "Picked up JAVA_TOOL_OPTIONS: -Dfile.encoding=UTF-8\n"
        "$ java -cp . jiibench --whatever iibench\n" + fixture_text("java-iibench-en.log")
    )
    assert parse_text(text).format == "java-iibench"


def test_it_refuses_prose_before_a_header():
    text = "Here is my run, hope it is good!\n" + fixture_text("python-2023.log")
    with pytest.raises(LogError) as error:
        parse_text(text)
    assert str(error.value).startswith("line 1: not an iiBench log:")


def test_it_refuses_markdown_without_a_metrics_capture():
    text = "# My results\n\nSome prose.\n\n```\nmysql> select 1;\n```\n"
    with pytest.raises(LogError) as error:
        parse_text(text)
    assert str(error.value).startswith("line 1: not an iiBench log:")
    assert str(error.value).endswith("found '# My results'")


def test_it_says_a_file_of_blank_lines_is_empty():
    with pytest.raises(LogError) as error:
        parse_text("\n  \n\n")
    assert str(error.value) == "the log is empty (3 blank lines)"


def test_it_recognises_sysbench_from_its_report_lines_alone():
    text = (
        "[ 10s ] thds: 1 tps: 20.00 qps: 20.00 (r/w/o: 0.00/20.00/0.00) "
        "lat (ms,95%): 61.08 err/s: 0.00 reconn/s: 0.00\n"
    )
    parsed = parse_text(text, declared={"rows_per_commit": 1000})
    assert parsed.format == "sysbench-iibench"
    assert list(parsed.series.rows) == [200_000]
