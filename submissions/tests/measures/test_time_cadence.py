"""Issue 11, items 1, 2 and 4: logs that report by time, partial last reports, totals the log
states, precise rates beside rounded seconds, excerpts. Built from logs shaped like the ones
that showed each problem (submissions/tests/fixtures/logs/make_time_cadence.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from submissions.contests.rules import Status
from submissions.logparse import parse_log
from submissions.measures.figures import compute_figures
from testing.judging import judge_track
from testing.logs import python_log

FIXTURES = Path(__file__).parents[1] / "fixtures" / "logs"
DEMO = Path(__file__).parents[2] / "demo_logs"
REPORT_RULES = ("report_interval", "no_missing_report", "whole_run", "cumulative_rate")


def judged(path: Path, **rules):
    rules = {"report_every_rows": 1_000_000, "target_rows": 1_000_000_000, **rules}
    return judge_track("classic", path.read_bytes(), **rules).verdicts


def figures_of(path: Path, target_rows: int = 1_000_000_000):
    log = parse_log(path.open("rb"))
    return compute_figures(log.series, target_rows=target_rows, log=log)


def test_a_java_log_reporting_every_ten_seconds_meets_the_report_rules():
    verdicts = judged(FIXTURES / "java-iibench-10s-en.log")
    assert verdicts["report_interval"].status == Status.PASS
    assert "reports every 10 s" in verdicts["report_interval"].message
    assert verdicts["no_missing_report"].status == Status.PASS


@pytest.mark.parametrize(
    "console, tsv",
    [
        ("java-iibench-10s-en.log", "java-iibench-10s-en.tsv"),
        ("java-iibench-real-en.log", "java-iibench-real-en.tsv"),
    ],
)
def test_the_console_and_the_tsv_of_one_run_get_the_same_verdicts(console, tsv):
    from_console = judged(FIXTURES / console)
    from_tsv = judged(FIXTURES / tsv)
    for rule in REPORT_RULES:
        assert from_console[rule].status == from_tsv[rule].status, rule
    assert figures_of(FIXTURES / console).elapsed_seconds == pytest.approx(
        figures_of(FIXTURES / tsv).elapsed_seconds
    )


def test_a_time_log_that_skips_reports_fails_on_the_time_step(tmp_path):
    lines = (FIXTURES / "java-iibench-10s-en.tsv").read_text().splitlines()
    del lines[10:14]  # four reports (40 s) gone
    path = tmp_path / "gap.tsv"
    path.write_text("\n".join(lines) + "\n")
    verdict = judged(path)["no_missing_report"]
    assert verdict.status == Status.FAIL
    assert "50.0 s passed between two reports that come every 10.0 s" in verdict.message


def test_a_time_log_reporting_less_often_than_the_rule_fails_the_interval_rule():
    verdict = judged(FIXTURES / "java-iibench-10s-en.log", report_every_rows=200_000)[
        "report_interval"
    ]
    assert verdict.status == Status.FAIL
    assert "a report at least every 200,000 rows is required" in verdict.message


def test_a_partial_last_second_does_not_make_the_terminal_rate():
    figures = figures_of(FIXTURES / "python-2023-partial-last-second.log")
    # ~60,000 rows/s held, the last report 28,990 rows: the rate rests on several seconds.
    assert figures.terminal_rate > 50_000
    assert figures.terminal_window_rows > 5 * 28_990
    assert "widened to the last 5 report intervals" in figures.terminal_window_basis


def test_java_seconds_come_from_the_precise_cumulative_rate():
    # The real TSV: 2,000,000 rows, elap_secs 89, cum_ips 22,427.81 (89.175 s).
    figures = figures_of(FIXTURES / "java-iibench-real-en.tsv")
    assert figures.elapsed_seconds == pytest.approx(2_000_000 / 22_427.81)
    assert figures.average_rate == pytest.approx(22_427.81)
    assert figures.elapsed_source == "line 19, tot_inserts / cum_ips"


def test_totals_after_an_index_build_give_elapsed_and_average():
    # --secondary_at_end: the last report at 11.0 s, "Created secondary indexes in 3.5
    # seconds", "Totals: 14.5 secs, 69053.3 rows/sec, 1000000 rows".
    path = DEMO / "python-iibench-mariadb-innodb-1m-secondary-at-end.log"
    figures = figures_of(path, target_rows=1_000_000)
    assert figures.elapsed_seconds == pytest.approx(14.48, abs=0.01)
    assert figures.average_rate == pytest.approx(69_053.3)
    assert figures.elapsed_source.startswith("summary line")
    assert figures.estimated_seconds_to_target == pytest.approx(figures.elapsed_seconds)
    verdict = judged(path, target_rows=1_000_000)["totals_agree"]
    assert verdict.status == Status.PASS
    assert "Created secondary indexes in 3.5 seconds" in verdict.message


def test_totals_later_than_the_reports_without_a_reason_fail(tmp_path):
    lines = python_log().decode().splitlines()
    totals = next(i for i, line in enumerate(lines) if line.startswith("Totals:"))
    words = lines[totals].split()
    words[1] = f"{float(words[1]) + 500:.1f}"
    lines[totals] = " ".join(words)
    path = tmp_path / "late-totals.log"
    path.write_text("\n".join(lines) + "\n")
    verdict = judged(path)["totals_agree"]
    assert verdict.status == Status.FAIL
    assert "names no work after the load" in verdict.message


def test_an_excerpt_is_marked_and_fails_the_whole_run_rule():
    log = parse_log((FIXTURES / "java-iibench-10s-excerpt-en.log").open("rb"))
    assert [marker.kind for marker in log.markers] == ["excerpt"]
    verdicts = judged(FIXTURES / "java-iibench-10s-excerpt-en.log")
    assert verdicts["whole_run"].status == Status.FAIL
    assert "excerpt" in verdicts["whole_run"].message
    # Its first interval began before the log: the interval check leaves it alone.
    assert verdicts["interval_rate"].status == Status.PASS


def test_a_log_from_its_first_report_is_not_an_excerpt():
    for name in ("java-iibench-10s-en.log", "python-2023.log", "python-2009-04.log"):
        log = parse_log((FIXTURES / name).open("rb"))
        assert not [marker for marker in log.markers if marker.kind == "excerpt"], name


def test_a_java_console_without_its_parameters_is_still_read_by_its_time_steps(tmp_path):
    # No "Feedback every 10 seconds" line to go by: the cadence is read off the reports.
    lines = (FIXTURES / "java-iibench-10s-en.log").read_text().splitlines()
    reports = [line for line in lines if " inserts : " in line or line.endswith("Done!")]
    path = tmp_path / "console.log"
    path.write_text("\n".join(reports) + "\n")

    log = parse_log(path.open("rb"))
    verdicts = judged(path)

    assert log.cadence == "time"
    assert verdicts["no_missing_report"].status == Status.PASS
    assert verdicts["report_interval"].status == Status.PASS
    assert verdicts["whole_run"].status == Status.PASS
