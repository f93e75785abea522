"""Compare a rerun with the curve an entry claims, over the same rows. Pure: numpy only."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not_reproduced"
INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True)
class Comparison:
    verdict: str
    ratio: float | None
    message: str


def seconds_at(rows: np.ndarray, seconds: np.ndarray, at_rows: float) -> float:
    """Elapsed seconds when `at_rows` rows were in, interpolated between reports from (0, 0)."""
    return float(np.interp(at_rows, np.concatenate(([0], rows)), np.concatenate(([0.0], seconds))))


def compare_runs(
    claimed_rows: np.ndarray,
    claimed_seconds: np.ndarray,
    rerun_rows: np.ndarray,
    rerun_seconds: np.ndarray,
    tolerance: float,
) -> Comparison:
    if len(rerun_rows) == 0 or rerun_seconds[-1] <= 0:
        return Comparison(INCONCLUSIVE, None, "The rerun reported no rows to compare.")
    if len(claimed_rows) == 0:
        return Comparison(INCONCLUSIVE, None, "The entry's log has no samples to compare with.")
    rows = float(min(rerun_rows[-1], claimed_rows[-1]))
    rerun_rate = rows / seconds_at(rerun_rows, rerun_seconds, rows)
    if rows < claimed_rows[0]:
        # The claim says nothing before its first report: compare with its rate there.
        claimed_at, claimed_rate = (
            float(claimed_rows[0]),
            float(claimed_rows[0] / claimed_seconds[0]),
        )
        where = f"the claim's first report, at {claimed_at:,.0f} rows,"
    else:
        claimed_rate = rows / seconds_at(claimed_rows, claimed_seconds, rows)
        where = f"the claim, over the same {rows:,.0f} rows,"
    ratio = rerun_rate / claimed_rate
    verdict = REPRODUCED if ratio >= 1.0 - tolerance else NOT_REPRODUCED
    outcome = (
        "reproduced"
        if verdict == REPRODUCED
        else f"not reproduced: more than {tolerance:.0%} slower than claimed"
    )
    message = (
        f"The rerun inserted {rows:,.0f} rows at {rerun_rate:,.0f} rows/s; {where} ran at "
        f"{claimed_rate:,.0f} rows/s. Ratio {ratio:.2f} (tolerance {tolerance:.0%}): {outcome}."
    )
    return Comparison(verdict, ratio, message)
