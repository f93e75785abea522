"""A crash-recovery rerun (seed 003): the runner's crash procedure (a private server, a run
throttled to the entry's insert rate, SIGKILL at a row count, a timed restart), planned and
judged here. Pure."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from .rerun import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    REPRODUCED,
    Claim,
    Comparison,
    CrashPlan,
    NotPlannable,
    Repeat,
    Rerun,
    RerunOutput,
    RerunRequest,
    StatedResolution,
    judge_each_repeat,
    positive,
    report_every,
    scale_caveat,
)

# A restart takes a second or so whatever was in flight (the server's own start-up): a
# recovery within this many seconds of the claim's is no slower, whatever the percentage.
RECOVERY_FLOOR_SECONDS = 1.0


def crash_plan(figures: dict, rows: int) -> CrashPlan:
    try:
        rate = float(figures["insert_rate"])
    except (KeyError, TypeError, ValueError):
        raise NotPlannable("The entry states no insert rate to crash at.") from None
    if not math.isfinite(rate) or rate < 1:
        raise NotPlannable(f"The entry's insert rate ({rate}) is not a rate to throttle to.")
    return CrashPlan(
        max_rate=round(rate),
        crash_at_rows=rows,
        insert_rows=2 * rows,
        report_every=report_every(rows),
    )


def refusal(request: RerunRequest) -> str | None:
    try:
        crash = crash_plan(request.figures, request.rows)
    except NotPlannable as reason:
        return str(reason)
    if crash.expected_seconds > request.time_limit:
        return (
            f"At the entry's {crash.max_rate:,} rows/s, {request.rows:,} rows take "
            f"{crash.expected_seconds:,.0f} s, longer than the target's "
            f"{request.time_limit:,} s time limit: ask for fewer rows."
        )
    return None


@dataclass(frozen=True)
class RecoveryFigures:
    engine: str  # the rerun's: InnoDB, MyISAM... on MariaDB, PostgreSQL
    insert_rate: float  # rows/s the throttled run reached before the crash
    rows_at_crash: int  # rows the last report showed when the server was killed
    rows_committed: int  # rows the benchmark knew were committed when it lost the server
    rows_found: int  # rows in the table once it answered again
    recovery_seconds: float  # restart until the server accepted a connection and the table answered


def compare_recovery(*, claimed: dict, rerun: RecoveryFigures, tolerance: float) -> Comparison:
    claimed_seconds = positive(claimed.get("recovery_seconds"))
    if claimed_seconds is None:
        return Comparison(INCONCLUSIVE, None, "The entry states no recovery time.")
    if rerun.rows_found < rerun.rows_committed:
        return Comparison(
            INCONCLUSIVE,
            None,
            f"The recovered table holds {rerun.rows_found:,} rows but {rerun.rows_committed:,} "
            "were committed before the crash: a recovery that loses committed rows says nothing "
            "about the claim's recovery time.",
        )
    ratio = claimed_seconds / max(rerun.recovery_seconds, 1e-3)
    allowed = claimed_seconds / (1.0 - tolerance) + RECOVERY_FLOOR_SECONDS
    if rerun.recovery_seconds <= allowed:
        verdict, outcome = REPRODUCED, "reproduced"
    else:
        verdict = NOT_REPRODUCED
        outcome = f"not reproduced: more than {tolerance:.0%} slower to recover than claimed"
    claimed_rows = int(positive(claimed.get("rows_at_crash")) or 0)
    claimed_rate = positive(claimed.get("insert_rate")) or 0
    message = (
        f"Killed with SIGKILL at {rerun.rows_at_crash:,} rows while inserting at "
        f"{rerun.insert_rate:,.0f} rows/s (the claim: {claimed_rate:,.0f} rows/s"
        f"{f', {claimed_rows:,} rows' if claimed_rows else ''}), the server recovered in "
        f"{rerun.recovery_seconds:,.2f} s with {rerun.rows_found:,} rows found; the claim "
        f"recovered in {claimed_seconds:,.1f} s. Ratio {ratio:.2f} (tolerance {tolerance:.0%}, "
        f"and {RECOVERY_FLOOR_SECONDS:g} s for a restart's own start-up): {outcome}."
    )
    claimed_engine = str(claimed.get("engine") or "")
    if claimed_engine and claimed_engine.lower() != rerun.engine.lower():
        message += (
            f" The claim is {claimed_engine}'s; the rerun's server ran {rerun.engine}, so this "
            "compares the engines as much as the entry."
        )
    if claimed_rows:
        message += scale_caveat(
            claimed_rows / max(rerun.rows_at_crash, 1),
            "recovery replays what was written since the last checkpoint, which a short run "
            "has little of",
        )
    return Comparison(verdict, ratio, message)


def judge_one(claim: Claim, output: RerunOutput, tolerance: float) -> Repeat:
    result = output.result
    figures = RecoveryFigures(
        engine=result["engine"],
        insert_rate=result["insert_rate"],
        rows_at_crash=result["rows_at_crash"],
        rows_committed=result["rows_committed"],
        rows_found=result["rows_found"],
        recovery_seconds=result["recovery_seconds"],
    )
    comparison = compare_recovery(claimed=claim.figures, rerun=figures, tolerance=tolerance)
    return Repeat(comparison, dict(result), int(figures.rows_at_crash), figures.insert_rate)


def resolution(repeats: list[Repeat], tolerance: float) -> StatedResolution:
    """A claim recovering `f` times faster than the repeats' median is refuted once even the
    fastest repeat took longer than the allowed time, claim / (1 - tolerance) plus a restart's
    own RECOVERY_FLOOR_SECONDS: f > median / ((fastest - floor) * (1 - tolerance))."""
    seconds = [positive(each.result.get("recovery_seconds")) for each in repeats]
    seconds = [each for each in seconds if each is not None]
    if not seconds:
        return StatedResolution(None, "no repeat measured a recovery time")
    fastest, middle = min(seconds), statistics.median(seconds)
    if fastest <= RECOVERY_FLOOR_SECONDS:
        return StatedResolution(
            None,
            f"the rerun recovered in {fastest:,.2f} s, within the {RECOVERY_FLOOR_SECONDS:g} s "
            "allowed for a restart's own start-up, so no faster claim could be refuted",
        )
    factor = middle / ((fastest - RECOVERY_FLOOR_SECONDS) * (1 - tolerance))
    return StatedResolution(
        factor,
        f"its recovery time against these runs', within {tolerance:.0%} and "
        f"{RECOVERY_FLOOR_SECONDS:g} s for a restart",
    )


judge = judge_each_repeat(judge_one, resolution=resolution)


RERUN = Rerun(
    judge=judge,
    refusal=refusal,
    procedure="crash",
    private_server=True,
    crash_plan=crash_plan,
)
