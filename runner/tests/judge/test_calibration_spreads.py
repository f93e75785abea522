"""A host's calibration, its pure core (runner/judge/calibration_spreads.py): the spread of
every figure the classic judge compares, from real reruns of one reference claim, and which
spreads a verdict is drawn with (fresh, stale, none, the fixtures)."""

import io
import math
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from runner.judge.calibration_spreads import (
    Calibration,
    NotCalibrated,
    calibration_spreads,
    spreads_for_judge,
)
from runner.judge.classic import (
    FIXTURE_SPREADS,
    HOST_CLIFF,
    HOST_CPU_SHARE,
    HOST_RATE,
    HOST_READS,
    shape_of,
)
from runner.judge.rerun import column, curve
from runner.judge.resolution import pooled
from submissions.logparse import parse_log

LOGS = Path(__file__).resolve().parents[3] / "submissions/tests/fixtures/logs"
# Three quiet triples of 1/10 reruns of a 3,000,000-row claim on this project's 2-core VMs.
TRIPLES = {
    "14 MB": [f"iibench-c-mariadb-14mb-pool-300k-{n}.log" for n in (1, 2, 3)],
    "25 MB": [f"iibench-c-mariadb-25mb-pool-300k-{n}.log" for n in (1, 2, 3)],
    "25 MB slow": [f"iibench-c-mariadb-25mb-pool-300k-slow-{n}.log" for n in (1, 2, 3)],
}


def reference_run(name: str):
    parsed = parse_log(io.BytesIO((LOGS / name).read_bytes()))
    return (*curve(parsed), column(parsed.series.read_ops), column(parsed.series.server_cpu_s))


def test_the_spread_of_each_figure_is_the_runs_own_standard_deviation():
    runs = [reference_run(name) for name in TRIPLES["25 MB"]]
    spreads = calibration_spreads(runs)
    # Every figure the judge compares, over two degrees of freedom (three runs).
    assert set(spreads) == {
        "cliff_fraction", "initial_rate", "after_rate", "terminal_ratio", "average_rate",
        "reads_per_row", "ms_per_read", "server_cpu_share",
    }  # fmt: skip
    assert {each.dof for each in spreads.values()} == {2}
    # The cliff as a fraction of the run: these runs' cliffs, as the judge places them.
    cliffs = [shape_of(rows, seconds).cliff for rows, seconds, _, _ in runs]
    mean = sum(cliffs) / 3
    expected = math.sqrt(sum((c - mean) ** 2 for c in cliffs) / 2)
    assert spreads["cliff_fraction"].sigma == pytest.approx(expected)
    # A rate's spread is a factor: the log of the fastest over the slowest is at most twice it
    # times sqrt(3) (three values), and never zero for runs that differ.
    rates = [rows[-1] / seconds[-1] for rows, seconds, _, _ in runs]
    span = math.log(max(rates) / min(rates))
    assert 0 < spreads["average_rate"].sigma <= span


def test_the_fixtures_constants_are_what_calibrating_on_their_three_triples_gives():
    # HOST_CLIFF, HOST_RATE, HOST_READS and HOST_CPU_SHARE were pooled by hand from these
    # triples: a calibration on them, pooled, gives the same spreads and six degrees of freedom.
    calibrated = [
        calibration_spreads([reference_run(n) for n in names]) for names in TRIPLES.values()
    ]
    for figure, constant in (
        ("cliff_fraction", HOST_CLIFF),
        ("average_rate", HOST_RATE),
        ("reads_per_row", HOST_READS),
        ("server_cpu_share", HOST_CPU_SHARE),
    ):
        found = pooled([each[figure] for each in calibrated])
        assert found.dof == constant.dof == 6
        assert round(found.sigma, 3) == constant.sigma, figure


def test_one_run_cannot_calibrate_nor_can_a_run_too_short_for_a_shape():
    run = reference_run(TRIPLES["25 MB"][0])
    with pytest.raises(NotCalibrated, match="at least two runs; 1 finished"):
        calibration_spreads([run])
    short = tuple(each[:5] for each in run)
    with pytest.raises(NotCalibrated, match="too few times to have a shape"):
        calibration_spreads([run, short])


NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)


def calibration(days_old: float, spreads=None) -> Calibration:
    spreads = spreads or calibration_spreads([reference_run(n) for n in TRIPLES["14 MB"]])
    return Calibration(
        spreads, 3, NOW - timedelta(days=days_old), "1/10 of the demo claim (300,000 rows)"
    )


def chosen(found, *, fixtures_allowed=False):
    return spreads_for_judge(
        found,
        now=NOW,
        max_age_days=7,
        fixtures=FIXTURE_SPREADS,
        fixtures_allowed=fixtures_allowed,
        host="verifier-1",
    )


def test_a_fresh_calibration_is_used_and_named():
    spreads = chosen(calibration(days_old=1))
    assert not spreads.unusable
    assert spreads.source == (
        "the host's calibration of 25 Nov 2026, 3 runs of 1/10 of the demo claim (300,000 rows)"
    )
    assert spreads.of("cliff_fraction").dof == 2


def test_a_stale_or_missing_calibration_is_unusable_and_says_why():
    stale = chosen(calibration(days_old=8))
    assert "this host's (verifier-1) calibration of 18 Nov 2026 is stale (8 days old" in (
        stale.unusable
    )
    missing = chosen(None)
    assert missing.unusable.startswith("this host (verifier-1) has no calibration")
    # One whose runs never reached their cliff measures no reads: it cannot stand in either.
    no_reads = {"cliff_fraction": HOST_CLIFF, "average_rate": HOST_RATE}
    partial = chosen(calibration(days_old=1, spreads=no_reads))
    assert "does not measure reads_per_row, server_cpu_share" in partial.unusable
    # Where the settings allow it, the fixtures stand in, said so.
    assert chosen(None, fixtures_allowed=True) is FIXTURE_SPREADS
    assert chosen(calibration(days_old=8), fixtures_allowed=True) is FIXTURE_SPREADS
    assert (
        FIXTURE_SPREADS.source == "spreads from the project's fixtures, this host is not calibrated"
    )


def test_what_a_calibration_could_refute_narrows_with_a_quieter_host():
    from runner.judge.calibration_spreads import refutable_factor
    from runner.judge.resolution import HostSpread

    # Today's quiet triple (26 Nov, load 0.5-1.6) against the triple of the slow VM.
    quiet = calibration_spreads(
        [reference_run(f"iibench-c-mariadb-14mb-pool-300k-quiet-{n}.log") for n in (1, 2, 3)]
    )
    slow = calibration_spreads([reference_run(name) for name in TRIPLES["25 MB slow"]])
    factors = [refutable_factor(each) for each in (quiet, slow)]
    assert all(1.0 < each < 2.0 for each in factors), factors
    # The factor grows with the CPU share's spread, and more reruns narrow it.
    wide = {"server_cpu_share": HostSpread(0.10, 4)}
    narrow = {"server_cpu_share": HostSpread(0.02, 4)}
    assert refutable_factor(narrow) < refutable_factor(wide)
    assert refutable_factor(wide, repeats=5) < refutable_factor(wide, repeats=3)
    assert refutable_factor({}) is None  # no reads counted: nothing to say
