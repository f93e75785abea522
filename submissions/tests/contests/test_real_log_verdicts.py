"""Issue 30, point 1: the verdicts real logs get, on logs made by this project
(scripts/make_verdict_fixtures.py: a real C run on MariaDB at a 100,000-row cadence, the Java
TSV's shape with truncated whole seconds and decimal commas, sysbench-mongodb's loader)."""

import io

import pytest

from submissions.contests.rules import Status
from submissions.logparse import LogError, parse_log
from submissions.measures.figures import log_figures
from testing.judging import judge_track
from testing.logs import fixture_text

OPEN_CONTEST = {"target_rows": 1_000_000_000, "report_every_rows": 1_000_000}


def verdicts(text: str, **rules) -> dict:
    return judge_track("classic", text.encode(), **{**OPEN_CONTEST, **rules}).verdicts


# --- Java's whole seconds are truncated ----------------------------------------------------


def test_a_java_tsv_whose_reports_come_late_in_their_second_adds_up():
    text = fixture_text("java-iibench-truncated-de.tsv")
    judged = verdicts(text)
    assert judged["cumulative_rate"].status == Status.PASS, judged["cumulative_rate"].message
    assert judged["interval_rate"].status == Status.PASS, judged["interval_rate"].message
    assert judged["no_missing_report"].status == Status.PASS
    # A TSV file holds reports only: no summary to compare, and it does not claim one.
    assert judged["totals_agree"].status == Status.UNVERIFIED
    assert "a Java TSV file holds reports only" in judged["totals_agree"].message


def test_java_figures_read_whole_seconds_as_the_second_after_them():
    log = parse_log(io.BytesIO(fixture_text("java-iibench-truncated-de.tsv").encode()))
    assert log.clock == "truncated"
    last = log.series
    printed = float(last.seconds[-1])
    rows = int(last.rows[-1])
    rate = float(last.cumulative_rate[-1])
    figures = log_figures(log, type("R", (), {"target_rows": 10**9, "terminal_window_rows": None}))
    # The true time is rows / cum_ips, which lies in the printed second, not before it.
    assert printed <= figures.elapsed_seconds < printed + 1
    assert figures.elapsed_seconds == pytest.approx(rows / rate, rel=1e-4)


def test_a_java_rate_that_needs_a_time_before_the_printed_second_fails():
    # 100,000 rows printed at 2 s with a rate of 60,000 rows/s would mean 1.67 s: earlier
    # than a truncated clock allows.
    header = fixture_text("java-iibench-truncated-de.tsv").splitlines()[0]
    text = header + "\n50000\t1\t40000,00\t40000,00\t0,00\t0,00\t0,00\t0,00\t0\n"
    text += "100000\t2\t60000,00\t50000,00\t0,00\t0,00\t0,00\t0,00\t0\n"
    verdict = verdicts(text)["cumulative_rate"]
    assert verdict.status == Status.FAIL
    assert verdict.line == 3


# --- other tools' logs -------------------------------------------------------------------


def test_sysbench_mongodb_loader_is_refused_naming_what_it_looks_like():
    with pytest.raises(LogError) as error:
        parse_log(io.BytesIO(fixture_text("sysbench-mongodb-load.log").encode()))
    message = str(error.value)
    assert message.startswith("line 3: not an iiBench log: this looks like sysbench-mongodb")
    assert "16 collections" in message


def test_a_java_console_whose_parameters_state_no_secondary_indexes_is_refused():
    lines = [
        line
        for line in fixture_text("sysbench-mongodb-load.log").splitlines()
        if "collection" not in line
    ]
    with pytest.raises(LogError) as error:
        parse_log(io.BytesIO(("\n".join(lines) + "\n").encode()))
    assert "states no secondary indexes" in str(error.value)


def test_sysbench_mongodb_tsv_is_refused():
    text = "tot_inserts\telap_secs\tcum_ips\tint_ips\n100000\t10\t10000.00\t10000.00\n"
    with pytest.raises(LogError) as error:
        parse_log(io.BytesIO(text.encode()))
    assert "sysbench-mongodb" in str(error.value)
    assert str(error.value).startswith("line 1: ")


# --- totals both ways; a cut last line -----------------------------------------------------


def c_run() -> str:
    return fixture_text("iibench-c-mariadb-100k-cadence.log")


def test_a_summary_with_more_rows_than_the_reports_reach_fails_naming_both():
    text = c_run().replace(
        "# summary status=completed rows=500000", "# summary status=completed rows=2000000"
    )
    verdict = verdicts(text)["totals_agree"]
    assert verdict.status == Status.FAIL
    assert "2,000,000" in verdict.message and "500,000" in verdict.message


def test_a_summary_that_matches_the_reports_agrees():
    assert verdicts(c_run())["totals_agree"].status == Status.PASS


def test_a_cut_last_line_marks_the_log_truncated_naming_the_line():
    lines = c_run().splitlines()
    last_report = max(i for i, line in enumerate(lines) if line.startswith("500000\t"))
    text = "\n".join(lines[:last_report]) + "\n" + lines[last_report][:20]
    verdict = verdicts(text)["whole_run"]
    assert verdict.status == Status.FAIL
    assert verdict.line == last_report + 1
    assert f"line {last_report + 1:,}" in verdict.message
    assert "truncated" in verdict.message


# --- gaps at the log's stated cadence and precision --------------------------------------

PY_HEADER = (
    "i_sec\tt_sec\ti_ips\tt_ips\ti_dps\tt_dps\ti_qps\tt_qps\tmax_i\tmax_d\tmax_q"
    "\tt_ins\tt_del\tt_query\tretry_i\tretry_d\tretry_q"
)


def python_1s_log(seconds: list[float], rates: dict[int, float] | None = None) -> str:
    """A Python iibench 2023 log reporting every second at 50,000 rows/s ('%.1f' times)."""
    lines, rows, last = [PY_HEADER], 0, 0.0
    for i, t in enumerate(seconds):
        step = t - last
        rows += round(50_000 * step)
        interval = (rates or {}).get(i, 50_000 * step / step)
        lines.append(
            f"{step:.1f}\t{t:.1f}\t{interval:.0f}\t{rows / t:.0f}\t0\t0\t0\t0\t1000\t0\t0"
            f"\t{rows}\t0\t0\t0\t0\t0"
        )
        last = t
    return "\n".join(lines) + "\n"


def test_a_missing_report_on_a_one_second_cadence_fails():
    times = [1.0, 2.0, 3.0, 5.0, 6.0, 7.0, 8.0]  # the report at 4.0 s is missing
    verdict = verdicts(python_1s_log(times))["no_missing_report"]
    assert verdict.status == Status.FAIL
    assert verdict.line == 5


def test_a_one_second_cadence_without_gaps_passes():
    times = [1.0, 2.0, 3.0, 4.1, 5.0, 6.0, 7.0]
    assert verdicts(python_1s_log(times))["no_missing_report"].status == Status.PASS


def test_an_interval_rate_for_a_doubled_interval_fails_at_the_logs_precision():
    # Times print as 1.0, 2.0: the log's precision is 0.1 s, not the whole second the values
    # would suggest. A rate twice what its second holds must fail.
    times = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    verdict = verdicts(python_1s_log(times, rates={3: 100_000}))["interval_rate"]
    assert verdict.status == Status.FAIL
    assert verdict.line == 5


# --- finer cadence ------------------------------------------------------------------------


def test_a_real_c_run_reporting_every_100k_rows_meets_a_report_every_1m_rows():
    judged = verdicts(c_run())
    assert judged["report_interval"].status == Status.PASS, judged["report_interval"].message
    assert judged["report_interval"].value == "100,000"
    assert judged["no_missing_report"].status == Status.PASS
    assert judged["whole_run"].status == Status.PASS
    for rule in ("cumulative_rate", "interval_rate", "totals_agree"):
        assert judged[rule].status == Status.PASS, (rule, judged[rule].message)
