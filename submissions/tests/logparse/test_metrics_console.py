from __future__ import annotations

from pathlib import Path

import pytest

from submissions.logparse import KeyTypeRun, LogError, MeterReading
from testing.logs import fixture_text, parse_fixture, parse_text


def test_it_reads_the_three_tables_of_a_console_capture():
    parsed = parse_fixture("metrics-console.log")
    assert parsed.format == "metrics-console"
    assert len(parsed.series) == 0
    assert [run.name for run in parsed.key_type_runs] == ["BASELINE", "UUID_CHAR", "UUID_OPTIMIZED"]
    assert parsed.key_type_runs[0] == KeyTypeRun(
        name="BASELINE",
        minutes=9.718,
        rows=500_000,
        reads=MeterReading(44278, 75.99, 7.26, 161.0, 490.35),
        writes=MeterReading(500, 0.86, 0.53, 0.99, 1.45),
        line=1,
        group="",
    )
    assert parsed.key_type_runs[2].minutes == 6.671
    assert parsed.key_type_runs[2].line == 59


def test_it_reads_took_lines_in_seconds_and_write_only_meters():
    parsed = parse_fixture("metrics-console-write-only.log")
    baseline, uuid_char, optimized = parsed.key_type_runs
    assert baseline.minutes == pytest.approx(47.08 / 60)
    assert uuid_char.minutes == 2.745
    assert baseline.rows == 1_000_000
    assert baseline.reads is None
    assert baseline.writes == MeterReading(100, 2.35, 3.12, 3.78, 3.92)
    assert optimized.minutes == pytest.approx(49.80 / 60)


def test_it_reads_the_seeds_markdown_write_up_and_keeps_each_tests_heading():
    parsed = parse_fixture("metrics-console-seed004.md")
    assert [run.name for run in parsed.key_type_runs] == ["BASELINE", "UUID_CHAR", "UUID_OPTIMIZED"]
    assert {run.group for run in parsed.key_type_runs} == {
        "test 1 (10 writers, 100 readers, 500k records, written in batches of 1k)"
    }
    assert parsed.key_type_runs[1].reads.count == 26914


def test_it_reads_the_whole_seed_document():
    # The seed is kept in the repository (docs/seeds/), so this never depends on the machine.
    seed = Path(__file__).resolve().parents[3] / "docs/seeds/004_82b1cec8fad19be6.txt"
    parsed = parse_text(seed.read_bytes())
    assert len(parsed.key_type_runs) == 18
    assert parsed.key_type_runs[-1].group == "Single-threaded write-only workload"


def test_it_is_strict_about_lines_outside_a_report():
    text = fixture_text("metrics-console.log").replace(
        "-- Meters ---", "Some prose in the middle\n-- Meters ---", 1
    )
    with pytest.raises(LogError) as error:
        parse_text(text)
    assert str(error.value) == (
        "line 13: not part of a metrics console report: 'Some prose in the middle'; "
        "upload the console output as it was printed"
    )


def test_it_rejects_a_run_without_its_took_line():
    text = fixture_text("metrics-console.log").replace(
        "BASELINE took ==================> 9.718 min", ""
    )
    with pytest.raises(LogError) as error:
        parse_text(text)
    assert str(error.value) == "line 1: the run BASELINE has no 'took' line"


def test_it_ignores_a_last_line_cut_off_without_its_newline():
    text = fixture_text("metrics-console.log").rstrip()
    parsed = parse_text(text[: text.rindex("15-minute rate") + len("15-minute ra")])
    assert parsed.cut_off_last_line is True
    assert len(parsed.key_type_runs) == 3
    assert parsed.key_type_runs[2].writes is None
    assert parsed.key_type_runs[2].reads.count == 27216
    assert [m.kind for m in parsed.markers] == ["cut_off"]
