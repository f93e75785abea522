"""A host's calibration of the classic judge: the run-to-run spread of every figure the judge
compares, from N quiet reruns of one reference claim on that host. Pure: numpy only.

The figures are the judge's own (rerun.py: `shape_of`, `past_cliff`), so a calibration measures
exactly what a verdict compares: where the cliff falls (a fraction of the run), the rate before
and after it, the terminal rate over the initial one, the average rate, and past the cliff the
reads per row, the time per read and the server's share of the time. Rates and ratios are
spread in logs (a factor), the cliff's place as a fraction of the run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from .classic import CLIFF, CPU_SHARE, RATE, READS, SCALED_CPU_SHARE, past_cliff, shape_of
from .resolution import DEFAULT_REPEATS, HostSpread, HostSpreads, host_half_width, spread_of

# Every figure a calibration keeps, and how it is spread: "fraction" as it is, "log" as a factor.
FIGURES = {
    CLIFF: "fraction",
    "initial_rate": "log",
    "after_rate": "log",
    "terminal_ratio": "log",
    RATE: "log",
    READS: "log",
    "ms_per_read": "log",
    CPU_SHARE: "log",
}
# What the judge needs of a host: without one of these the calibration cannot stand in for the
# fixtures (a reference run that never reached its cliff, or whose log counts no reads).
JUDGED = (CLIFF, RATE, READS, CPU_SHARE)

# One reference run: rows, seconds, device reads and the server's CPU seconds at each report.
Run = tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]


class NotCalibrated(ValueError):
    """The runs cannot calibrate the host (the message says why)."""


def run_figures(run: Run) -> dict[str, float]:
    """The judge's figures of one run, by name (the cliff at 1.0 for a run without one, as the
    judge places it); a figure the log does not measure is left out."""
    rows, seconds, reads, cpu = run
    shape = shape_of(rows, seconds)
    if shape is None:
        raise NotCalibrated("a reference run reported too few times to have a shape")
    found = {key: value for key, value in shape.as_dict().items() if key in FIGURES}
    found[CLIFF] = 1.0 if shape.cliff is None else shape.cliff
    past = past_cliff(shape, (rows, seconds), reads, cpu)
    if past is not None:
        found.update(past.as_dict())
    return {key: float(value) for key, value in found.items() if value is not None}


def refutable_factor(
    spreads: dict[str, HostSpread], repeats: int = DEFAULT_REPEATS
) -> float | None:
    """The smallest factor too fast a verification of `repeats` reruns could refute with these
    spreads at best (its reruns agreeing exactly), on the server's CPU share: the figure that
    judges a rate where the logs count reads and CPU. None without that figure."""
    spread = spreads.get(CPU_SHARE)
    if spread is None:
        return None
    return math.exp(host_half_width(spread, repeats, systematic=SCALED_CPU_SHARE))


def calibration_spreads(runs: list[Run]) -> dict[str, HostSpread]:
    """The spread of every figure over these reruns of one reference claim (sample standard
    deviation, n - 1 degrees of freedom), of those every run measured."""
    if len(runs) < 2:
        raise NotCalibrated(f"a spread needs at least two runs; {len(runs)} finished")
    measured = [run_figures(run) for run in runs]
    spreads = {}
    for figure, scale in FIGURES.items():
        values = [each[figure] for each in measured if figure in each]
        if len(values) < len(runs) or (scale == "log" and min(values) <= 0):
            continue
        spreads[figure] = spread_of([math.log(v) for v in values] if scale == "log" else values)
    return spreads


@dataclass(frozen=True)
class Calibration:
    """A stored calibration as the judge needs it: the spreads, how many runs measured them,
    when, and whether it is still fresh."""

    spreads: dict[str, HostSpread]
    runs: int
    measured_at: datetime
    reference: str  # the reference setup, for people: "1/10 of the demo claim (300,000 rows)"


def spreads_for_judge(
    calibration: Calibration | None,
    *,
    now: datetime,
    max_age_days: float,
    fixtures: HostSpreads,
    fixtures_allowed: bool,
    host: str,
    last_failure: str = "",
) -> HostSpreads:
    """The spreads a verdict is drawn with: the host's fresh calibration; else, where the
    settings allow it (RERUN_FIXTURE_SPREADS), the project's fixtures, said so; else none, and
    the reason the verdict is inconclusive (no calibration, a stale one, one missing a figure;
    with why the host's last calibration failed, `last_failure`, where one did)."""
    missing = _why_unusable(calibration, now=now, max_age_days=max_age_days, host=host)
    if missing and last_failure:
        missing += f" (its last calibration failed: {last_failure.rstrip('.')})"
    if calibration is not None and not missing:
        when = calibration.measured_at.strftime("%d %b %Y").lstrip("0")
        source = (
            f"the host's calibration of {when}, {calibration.runs} runs of {calibration.reference}"
        )
        return HostSpreads(dict(calibration.spreads), source)
    if fixtures_allowed:
        return fixtures
    # The figures only let the judge measure the reruns; the verdict states no resolution.
    return HostSpreads(dict(fixtures.figures), "not known", unusable=missing)


def _why_unusable(
    calibration: Calibration | None, *, now: datetime, max_age_days: float, host: str
) -> str:
    if calibration is None:
        return (
            f"this host ({host}) has no calibration for a run of this size, so its run-to-run "
            "spread is not known: calibrate it (manage.py calibrate_host) and judge the rerun "
            "again"
        )
    age = (now - calibration.measured_at).total_seconds() / 86_400
    if age > max_age_days:
        return (
            f"this host's ({host}) calibration of {calibration.measured_at:%d %b %Y} is stale "
            f"({age:.0f} days old, more than {max_age_days:g}): its spread may have changed since; "
            "calibrate it again (manage.py calibrate_host)"
        )
    absent = [figure for figure in JUDGED if figure not in calibration.spreads]
    if absent:
        return (
            f"this host's ({host}) calibration does not measure {', '.join(absent)} (its "
            "reference runs never reached their cliff, or their logs count no reads)"
        )
    return ""
