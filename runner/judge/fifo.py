"""A FIFO rerun (seed 002 at the rerun's scale): inserts with deletes from the same fraction of
the rows, judged on the terminal insert rate once deletes run. Pure."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from submissions.measures.terminal import terminal_window

from .rerun import (
    INCONCLUSIVE,
    Claim,
    Comparison,
    NotPlannable,
    Repeat,
    Rerun,
    RerunOutput,
    RerunRequest,
    RerunSpec,
    Step,
    benchmark_arguments,
    column,
    curve,
    judge_each_repeat,
    positive,
    repeat_of,
    report_every,
    scale_caveat,
    speed_resolution,
    speed_verdict,
)

# When the entry does not say: seed 002's and the contest's terminal window.
DEFAULT_TERMINAL_WINDOW_ROWS = 10_000_000
STEP = "fifo"


@dataclass(frozen=True)
class FifoScale:
    """Seed 002's proportions carried to a smaller run: deletes begin at the same fraction of
    the rows, the terminal window is the same fraction of them (at least one report interval)."""

    rows: int
    delete_after: int
    terminal_window_rows: int
    claimed_rows: int
    claimed_delete_after: int
    claimed_window_rows: int

    @property
    def factor(self) -> float:
        return self.claimed_rows / self.rows


def fifo_scale(figures: dict, claimed_rows: int, rows: int) -> FifoScale:
    claimed_start = _row_count(figures, "deletes_start_row") or _row_count(figures, "delete_after")
    if claimed_start <= 0:
        raise NotPlannable("The entry states no row count at which its deletes start.")
    if claimed_rows <= claimed_start:
        raise NotPlannable(
            f"The entry's deletes start at row {claimed_start:,}, but its run stops at "
            f"{claimed_rows:,} rows: it has no FIFO phase to compare."
        )
    interval = report_every(rows)
    if rows < 3 * interval:
        raise NotPlannable(
            f"A FIFO rerun needs at least {3 * interval:,} rows: one report before the deletes "
            "and two after them."
        )
    # Deletes start on a report boundary so the curve shows where they begin.
    start = round(rows * claimed_start / claimed_rows / interval) * interval
    start = min(max(start, interval), rows - 2 * interval)
    claimed_window = _row_count(figures, "terminal_window_rows") or DEFAULT_TERMINAL_WINDOW_ROWS
    claimed_window = min(claimed_window, claimed_rows - claimed_start)
    window = math.ceil(rows * claimed_window / claimed_rows / interval) * interval
    window = min(max(window, interval), rows - start)
    return FifoScale(rows, start, window, claimed_rows, claimed_start, claimed_window)


def _row_count(figures: dict, key: str) -> int:
    """A row count the entry states, 0 when it states none."""
    value = figures.get(key)
    if value is None or value == "":
        return 0
    try:
        rows = float(value)
    except (TypeError, ValueError):
        raise NotPlannable(f"The entry's {key} ({value!r}) is not a row count.") from None
    if not math.isfinite(rows) or rows < 0:
        raise NotPlannable(f"The entry's {key} ({value!r}) is not a row count.")
    return int(rows)


def steps(spec: RerunSpec) -> list[Step]:
    scale = fifo_scale(spec.figures, spec.claimed_rows, spec.plan.rows)
    plan = replace(spec.plan, delete_after=scale.delete_after, query_threads=0)
    description = f"inserts with FIFO deletes from row {scale.delete_after:,}"
    return [Step(STEP, description, benchmark_arguments(plan), plan.rows)]


def refusal(request: RerunRequest) -> str | None:
    try:
        fifo_scale(request.figures, request.claimed_rows, request.rows)
    except NotPlannable as reason:
        return str(reason)
    return None


# --- what a rerun measured ----------------------------------------------------------------------


def terminal_rate(rows: np.ndarray, seconds: np.ndarray, window_rows: int) -> float | None:
    """Rows/s over the rerun's last `window_rows` rows (the claim's window, scaled), measured
    as the registry measures every terminal rate (submissions/measures/terminal.py)."""
    if len(rows) == 0:
        return None
    window = terminal_window(rows, seconds, target_rows=int(rows[-1]), window_rows=window_rows)
    return window.rate


def deletes_start_row(rows: np.ndarray, deleted: np.ndarray | None) -> int | None:
    """The last report before the first delete: deletes began after it."""
    if deleted is None or not np.any(deleted > 0):
        return None
    first = int(np.argmax(deleted > 0))
    return int(rows[first - 1]) if first > 0 else 0


def measured(output: RerunOutput, scale: FifoScale) -> dict:
    parsed = output.logs[STEP]
    rows, seconds = curve(parsed)
    rate = terminal_rate(rows, seconds, scale.terminal_window_rows)
    start = deletes_start_row(rows, column(parsed.series.deleted))
    return {
        "delete_after": scale.delete_after,
        "deletes_start_row": start,
        "terminal_insert_rate": rate,
        "terminal_window_rows": scale.terminal_window_rows,
        "scale": scale.factor,
        "summary": (
            f"terminal insert rate {rate:,.0f} rows/s over the last "
            f"{scale.terminal_window_rows:,} rows, deletes from row {start:,}"
            if rate is not None and start is not None
            else "no FIFO phase"
        ),
    }


def compare_fifo(
    *,
    claimed: dict,
    scale: FifoScale,
    rerun_terminal_rate: float | None,
    rerun_deletes_start: int | None,
    tolerance: float,
) -> Comparison:
    claimed_rate = positive(claimed.get("terminal_insert_rate"))
    if claimed_rate is None:
        return Comparison(INCONCLUSIVE, None, "The entry states no terminal insert rate.")
    if rerun_deletes_start is None or rerun_terminal_rate is None:
        return Comparison(
            INCONCLUSIVE, None, "The rerun never deleted a row, so it has no FIFO phase."
        )
    ratio = rerun_terminal_rate / claimed_rate
    verdict, outcome = speed_verdict(ratio, tolerance)
    message = (
        f"With deletes from row {rerun_deletes_start:,} on (the claim's "
        f"{scale.claimed_delete_after:,} of {scale.claimed_rows:,} rows, scaled to this rerun's "
        f"{scale.rows:,}), the rerun inserted {rerun_terminal_rate:,.0f} rows/s over its last "
        f"{scale.terminal_window_rows:,} rows; the claim, {claimed_rate:,.0f} rows/s over its last "
        f"{scale.claimed_window_rows:,}. Ratio {ratio:.2f} (tolerance {tolerance:.0%}): {outcome}."
    ) + scale_caveat(scale.factor, "a FIFO table that fits in memory deletes cheaply")
    return Comparison(verdict, ratio, message)


def judge_one(claim: Claim, output: RerunOutput, tolerance: float) -> Repeat:
    plan = fifo_scale(claim.figures, claim.rows, output.rows_target)
    result = measured(output, plan)
    comparison = compare_fifo(
        claimed=claim.figures,
        scale=plan,
        rerun_terminal_rate=result["terminal_insert_rate"],
        rerun_deletes_start=result["deletes_start_row"],
        tolerance=tolerance,
    )
    return repeat_of(comparison, result, output)


judge = judge_each_repeat(
    judge_one, resolution=speed_resolution("its terminal insert rate once deletes run")
)


RERUN = Rerun(judge=judge, steps=steps, refusal=refusal)
