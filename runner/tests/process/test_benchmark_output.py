"""The registry's parser reads the bundled C benchmark's output to the same figures the
benchmark printed: every report line, the summary and the header."""

import io
import math
import subprocess
from pathlib import Path

import pytest
from django.conf import settings

from submissions.logparse import parse_log
from submissions.logparse.c_format import COLUMNS, COST_COLUMNS
from submissions.measures.figures import compute_figures

FIXTURES = Path(settings.BASE_DIR) / "runner" / "iibench" / "tests" / "fixtures"
# The rerun targets' scratch databases (RERUN_TARGET_*_URL), which `make services` creates.
TARGETS = {
    "sqlite": "sqlite:///{tmp}/output.db",
    "mariadb": settings.RERUN_TARGETS["mariadb-shared"]["url"],
    "postgresql": settings.RERUN_TARGETS["postgresql-shared"]["url"],
}


def printed(output: str) -> tuple[list[list[str]], dict[str, str]]:
    """The report lines and the summary's key=value pairs, read naively from the text."""
    reports = [line.split("\t") for line in output.splitlines() if line[:1].isdigit()]
    summary_line = next(line for line in output.splitlines() if line.startswith("# summary "))
    summary = dict(pair.split("=", 1) for pair in summary_line.split()[2:] if "=" in pair)
    return reports, summary


def assert_same_figures(output: str) -> None:
    parsed = parse_log(io.BytesIO(output.encode()))
    reports, summary = printed(output)
    series = parsed.series
    assert parsed.format == "iibench-c"
    assert len(series) == len(reports)
    for i, report in enumerate(reports):
        assert series.rows[i] == int(report[0])
        assert series.seconds[i] == float(report[1])
        assert series.interval_rate[i] == float(report[2])
        assert series.cumulative_rate[i] == float(report[3])
        # Format 2: each cost column read back to the printed figure, "-" to NaN (absent).
        for name, text in zip(COST_COLUMNS, report[len(COLUMNS) :], strict=False):
            column = getattr(series, name)
            if column is None:
                assert all(r[len(COLUMNS) + COST_COLUMNS.index(name)] == "-" for r in reports)
            elif text == "-":
                assert math.isnan(column[i])
            else:
                assert column[i] == float(text), (name, i)
    figures = compute_figures(series, target_rows=int(summary["rows"]))
    assert figures.rows == int(summary["rows"])
    assert parsed.totals.rows == int(summary["rows"])
    assert parsed.totals.seconds == float(summary["seconds"])
    assert parsed.totals.status == summary["status"]
    # The summary's average is rows over the run's own clock; the last report's seconds agree to
    # the printed millisecond.
    assert figures.average_rate == pytest.approx(float(summary["average_ips"]), rel=2e-3)


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_the_parser_reads_a_fresh_run_to_the_printed_figures(target, iibench_binary, tmp_path):
    url = TARGETS[target].format(tmp=tmp_path)
    result = subprocess.run(
        [iibench_binary, "--db", url, "--rows", "30000", "--report-every", "5000", "--seed", "5"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert_same_figures(result.stdout)
    parsed = parse_log(io.BytesIO(result.stdout.encode()))
    assert parsed.parameters["rows_per_commit"].value == 1000
    assert parsed.parameters["rows_per_insert"].value == 1000
    assert parsed.parameters["backend"].value == {"sqlite": "sqlite", "mariadb": "mysql"}.get(
        target, target
    )
    assert {index.name for index in parsed.indexes} >= {"marketsegment", "registersegment", "pdc"}
    assert all(index.created == "before_load" for index in parsed.indexes)
    # What the run cost and how the machine and server were set up.
    series = parsed.series
    assert series.latency_p99_ms is not None and series.db_size_bytes is not None
    assert list(series.db_size_bytes) == sorted(series.db_size_bytes)
    assert (series.server_cpu_s is None) == (target == "sqlite")
    # Format 3: the machine's CPU, parsed back to the printed figures.
    printed = [line.split("\t")[-1] for line in result.stdout.splitlines() if line[:1].isdigit()]
    assert list(series.machine_cpu_s) == [float(value) for value in printed]
    assert sum(series.machine_cpu_s) >= sum(series.client_cpu_s) * 0.5
    assert int(parsed.machine["cpus"].value) >= 1
    printed_settings = [
        line for line in result.stdout.splitlines() if line.startswith("# setting ")
    ]
    assert len(parsed.settings) == len(printed_settings) > 0


@pytest.mark.parametrize("fixture", sorted(path.name for path in FIXTURES.glob("*.log")))
def test_the_parser_reads_the_shipped_outputs_to_their_printed_figures(fixture):
    assert_same_figures((FIXTURES / fixture).read_text())
