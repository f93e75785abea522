from __future__ import annotations

import pytest

from submissions.logparse import LogError
from testing.logs import fixture_text, parse_text

HEADER_2009 = "#rows #seconds #total_seconds cum_ips table_size last_ips #queries cum_qps last_qps"
HEADER_2023 = (
    "i_sec\tt_sec\ti_ips\tt_ips\ti_dps\tt_dps\ti_qps\tt_qps\tmax_i\tmax_d\tmax_q"
    "\tt_ins\tt_del\tt_query\tretry_i\tretry_d\tretry_q"
)


def line_2009(rows: int, total: float, interval: float = 10.0) -> str:
    return f"{rows} {interval:.1f} {total:.1f} {rows / total:.1f} {rows} 1000.0 0 0.0 0.0"


def line_2023(seconds: str, rows: str, rate: str = "1000") -> str:
    return f"10.0\t{seconds}\t{rate}\t{rate}\t0\t0\t0\t0\t5\t0\t0\t{rows}\t0\t0\t0\t0\t0"


def log_2009(*lines: str) -> str:
    return "\n".join([HEADER_2009, *lines, ""])


def log_2023(*lines: str) -> str:
    return "\n".join([HEADER_2023, *lines, ""])


def error_of(text: str) -> str:
    with pytest.raises(LogError) as error:
        parse_text(text)
    return str(error.value)


def test_its_message_names_the_line_with_thousands_separators():
    error = LogError("rows went down from 5,000,000 to 4,000,000", line=1204)
    assert str(error) == "line 1,204: rows went down from 5,000,000 to 4,000,000"
    assert error.line == 1204
    assert error.message == "rows went down from 5,000,000 to 4,000,000"
    assert isinstance(error, ValueError)


def test_its_message_has_no_line_when_the_whole_log_is_at_fault():
    assert str(LogError("the log is empty")) == "the log is empty"


def test_it_rejects_rows_that_go_backwards():
    text = log_2009(
        line_2009(4_000_000, 40.0), line_2009(5_000_000, 50.0), line_2009(4_500_000, 60.0)
    )
    assert error_of(text) == (
        "line 4: rows went down from 5,000,000 to 4,500,000 (line 3): "
        "upload one run per log, as the benchmark printed it"
    )


def test_it_rejects_time_that_goes_backwards():
    text = log_2023(line_2023("20.0", "20000"), line_2023("10.0", "30000"))
    assert error_of(text) == (
        "line 3: time went down from 20 s to 10 s (line 2): "
        "upload one run per log, as the benchmark printed it"
    )


def test_it_rejects_a_repeated_report_line():
    text = log_2009(line_2009(1_000_000, 10.0), line_2009(1_000_000, 10.0))
    assert error_of(text) == (
        "line 3: this report repeats line 2 (1,000,000 rows at 10 s): remove the repeated line"
    )


def test_it_rejects_a_repeated_report_in_a_time_based_log():
    text = log_2023(line_2023("10.0", "10000"), line_2023("10.0", "10000"))
    assert error_of(text).startswith("line 3: this report repeats line 2")


@pytest.mark.parametrize("bad", ["nan", "inf", "-inf", "NaN"])
def test_it_rejects_numbers_that_are_not_finite(bad):
    text = log_2023(line_2023("10.0", "10000"), line_2023("20.0", "20000", rate=bad))
    assert error_of(text).startswith(
        f"line 3: i_ips is {float(bad)}: a report holds finite numbers"
    )


def test_it_rejects_negative_numbers():
    text = log_2023(line_2023("10.0", "10000", rate="-5"))
    assert error_of(text) == (
        "line 2: i_ips is -5: a report holds finite numbers that are not negative; "
        "was the line edited?"
    )


def test_it_rejects_negative_rows():
    text = log_2023(line_2023("10.0", "-10000"))
    assert error_of(text).startswith("line 2: t_ins is -10,000:")


def test_it_rejects_integers_beyond_64_bits():
    text = log_2023(line_2023("10.0", "10000"), line_2023("20.0", str(2**64)))
    assert error_of(text) == (
        "line 3: t_ins 18,446,744,073,709,551,616 is larger than a 64-bit integer: "
        "was the line edited?"
    )


def test_it_rejects_a_word_where_a_number_belongs():
    text = log_2023(line_2023("10.0", "10000"), line_2023("2O.0", "20000"))
    assert error_of(text) == "line 3: t_sec '2O.0' is not a number"


def test_it_rejects_a_report_with_the_wrong_number_of_columns_in_the_middle():
    short = line_2023("20.0", "20000").rsplit("\t", 3)[0]
    text = log_2023(line_2023("10.0", "10000"), short, line_2023("30.0", "30000"))
    assert error_of(text) == (
        "line 3: a report line with 14 columns where the header (line 1) has 17: "
        "was the log cut or edited?"
    )


def test_it_rejects_a_log_without_report_lines():
    text = (
        HEADER_2023 + "\nTotals: 0.0 secs, 0.0 rows/sec, 0 rows, 0 0 0 insert-delete-query retry\n"
    )
    assert error_of(text) == (
        "the log has no report lines (it has 2 lines): "
        "upload the output of a run that reached its first report"
    )


def test_it_names_the_earliest_problem_first():
    text = log_2023(
        line_2023("10.0", "10000", rate="nan"),
        line_2023("20.0", "20000"),
        line_2023("15.0", "30000"),
    )
    assert error_of(text).startswith("line 2: i_ips is nan")


def test_it_rejects_a_bad_number_in_the_c_format():
    text = fixture_text("iibench-c-completed.log").replace("66365.8", "66,365.8")
    assert error_of(text) == "line 28: interval_ips '66,365.8' is not a number"
