"""Compare a rerun of a track (FIFO, queries, key types, bulk load, crash recovery) with the
figures its entry claims. Pure: numpy and dataclasses.

Every comparison gives a ratio oriented like the classic one, rerun performance over claimed
performance (a time is inverted: claimed seconds / rerun seconds), so one rule reads them all:
reproduced when the ratio is at least 1 - tolerance. Key types are the exception, a shape
rather than a speed: reproduced when the rerun's ratios are within the tolerance of the
claim's, either way."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from runner.compare import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, Comparison, seconds_at
from runner.workloads import KEY_TYPE_NAMES, KEY_TYPES, FifoScale

# Past this many times smaller than the claim, a rerun says so in its message.
SCALE_WORTH_SAYING = 10


def _speed_verdict(ratio: float, tolerance: float, slower: str = "slower") -> tuple[str, str]:
    if ratio >= 1.0 - tolerance:
        return REPRODUCED, "reproduced"
    return NOT_REPRODUCED, f"not reproduced: more than {tolerance:.0%} {slower} than claimed"


def _scale_caveat(factor: float, what: str) -> str:
    if factor < SCALE_WORTH_SAYING:
        return ""
    return (
        f" The rerun is {factor:,.0f}x smaller than the claim, and {what}: at this scale a "
        "reproduced verdict says the claim is plausible, a not-reproduced one is strong "
        "evidence against it."
    )


def _mapping(value: object) -> dict:
    """The figures are JSON someone computed or declared: a part that is not an object is
    treated as absent, never trusted."""
    return value if isinstance(value, dict) else {}


def _pairs(value: object) -> list[tuple[float, float]]:
    """[[rows, seconds], ...] with both positive numbers; anything else is left out."""
    if not isinstance(value, list):
        return []
    pairs = []
    for item in value:
        if isinstance(item, list | tuple) and len(item) == 2:
            rows, seconds = _number(item[0]), _number(item[1])
            if rows is not None and seconds is not None:
                pairs.append((rows, seconds))
    return sorted(pairs)


def _number(value: object) -> float | None:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) and number > 0 else None


# --- FIFO (seed 002) ---------------------------------------------------------------------------


def terminal_rate(rows: np.ndarray, seconds: np.ndarray, window_rows: int) -> float | None:
    """Rows/s over the last `window_rows` rows, interpolated between reports."""
    if len(rows) == 0:
        return None
    end_rows, end_seconds = float(rows[-1]), float(seconds[-1])
    start_rows = max(0.0, end_rows - window_rows)
    elapsed = end_seconds - seconds_at(rows, seconds, start_rows)
    return (end_rows - start_rows) / elapsed if elapsed > 0 else None


def deletes_start_row(rows: np.ndarray, deleted: np.ndarray | None) -> int | None:
    """The last report before the first delete: deletes began after it."""
    if deleted is None or not np.any(deleted > 0):
        return None
    first = int(np.argmax(deleted > 0))
    return int(rows[first - 1]) if first > 0 else 0


def compare_fifo(
    *,
    claimed: dict,
    scale: FifoScale,
    rerun_terminal_rate: float | None,
    rerun_deletes_start: int | None,
    tolerance: float,
) -> Comparison:
    claimed_rate = _number(claimed.get("terminal_insert_rate"))
    if claimed_rate is None:
        return Comparison(INCONCLUSIVE, None, "The entry states no terminal insert rate.")
    if rerun_deletes_start is None or rerun_terminal_rate is None:
        return Comparison(
            INCONCLUSIVE, None, "The rerun never deleted a row, so it has no FIFO phase."
        )
    ratio = rerun_terminal_rate / claimed_rate
    verdict, outcome = _speed_verdict(ratio, tolerance)
    message = (
        f"With deletes from row {rerun_deletes_start:,} on (the claim's "
        f"{scale.claimed_delete_after:,} of {scale.claimed_rows:,} rows, scaled to this rerun's "
        f"{scale.rows:,}), the rerun inserted {rerun_terminal_rate:,.0f} rows/s over its last "
        f"{scale.terminal_window_rows:,} rows; the claim, {claimed_rate:,.0f} rows/s over its last "
        f"{scale.claimed_window_rows:,}. Ratio {ratio:.2f} (tolerance {tolerance:.0%}): {outcome}."
    ) + _scale_caveat(scale.factor, "a FIFO table that fits in memory deletes cheaply")
    return Comparison(verdict, ratio, message)


# --- query scalability (seed 001) ----------------------------------------------------------------


def query_points(
    rows: np.ndarray, interval_query_rate: np.ndarray | None, threads: int
) -> list[list[float]]:
    """[rows, seconds per query] at each report: each thread runs one query after another, so
    a query took threads / (queries per second) on average over the interval."""
    if interval_query_rate is None or threads < 1:
        return []
    return [
        [int(at), threads / float(rate)]
        for at, rate in zip(rows, interval_query_rate, strict=True)
        if rate > 0
    ]


def compare_queries(*, claimed: dict, rerun_points: list, tolerance: float) -> Comparison:
    if claimed.get("source") == "declared":
        return Comparison(
            INCONCLUSIVE,
            None,
            "The entry declares the times of its own query; the rerun times the benchmark's "
            "index walks (LIMIT 10 from a random point), a different query, so the two "
            "cannot be compared.",
        )
    points = _pairs(claimed.get("points"))
    if not points:
        return Comparison(INCONCLUSIVE, None, "The entry states no query times.")
    if not rerun_points:
        return Comparison(INCONCLUSIVE, None, "The rerun completed no queries to time.")
    rerun = np.array(rerun_points, dtype=np.float64)
    low, high = rerun[0, 0], rerun[-1, 0]
    comparable = [(r, s) for r, s in points if low <= r <= high]
    if not comparable:
        return Comparison(
            INCONCLUSIVE,
            None,
            f"The claim's query times are at {points[0][0]:,.0f} to {points[-1][0]:,.0f} rows; "
            f"the rerun timed queries at {low:,.0f} to {high:,.0f} rows: no size in common. "
            f"A rerun of at least {points[0][0]:,.0f} rows can be compared.",
        )
    ratios = [s / float(np.interp(r, rerun[:, 0], rerun[:, 1])) for r, s in comparable]
    ratio = float(np.median(ratios))
    verdict, outcome = _speed_verdict(ratio, tolerance)
    last_rows, last_seconds = comparable[-1]
    rerun_last = float(np.interp(last_rows, rerun[:, 0], rerun[:, 1]))
    message = (
        f"At {len(comparable)} table size{'s' if len(comparable) > 1 else ''} both timed "
        f"(up to {last_rows:,.0f} rows: rerun {_seconds(rerun_last)}, claim "
        f"{_seconds(last_seconds)} per query), the claim's query time over the rerun's has a "
        f"median of {ratio:.2f} (tolerance {tolerance:.0%}): {outcome}."
    )
    return Comparison(verdict, ratio, message)


def _seconds(value: float) -> str:
    return f"{value * 1000:,.2f} ms" if value < 1 else f"{value:,.1f} s"


# --- primary-key types (seed 004) ----------------------------------------------------------------


def key_type_ratios(runs: dict) -> dict[str, float]:
    """Each UUID kind's time over the auto-increment key's, for the same rows."""
    runs = _mapping(runs)
    base = _number(_mapping(runs.get("autoinc")).get("minutes"))
    if base is None:
        return {}
    ratios = {}
    for kind in KEY_TYPES[1:]:
        minutes = _number(_mapping(runs.get(kind)).get("minutes"))
        if minutes is not None:
            ratios[kind] = minutes / base
    return ratios


# A table inserted faster than this is timed as much on start-up (connections, the first
# pages) as on its key.
SHORT_KEY_TYPE_SECONDS = 10


def compare_key_types(
    *, claimed: dict, rerun_ratios: dict, tolerance: float, rerun_runs: dict | None = None
) -> Comparison:
    stated = _mapping(claimed.get("ratios")) or key_type_ratios(claimed.get("runs"))
    claimed_ratios = {kind: _number(value) for kind, value in stated.items() if _number(value)}
    kinds = [kind for kind in KEY_TYPES[1:] if kind in claimed_ratios and kind in rerun_ratios]
    if not kinds:
        return Comparison(
            INCONCLUSIVE, None, "The entry states no UUID / auto-increment time ratios."
        )
    # Ratio of ratios: 1.0 when the rerun shows the claim's shape exactly.
    shape = {kind: rerun_ratios[kind] / claimed_ratios[kind] for kind in kinds}
    worst = max(shape.values(), key=lambda value: abs(math.log(value)))
    reproduced = all(abs(value - 1.0) <= tolerance for value in shape.values())
    verdict = REPRODUCED if reproduced else NOT_REPRODUCED
    parts = [
        f"{rerun_ratios[kind]:.2f}x with the {KEY_TYPE_NAMES[kind]} (claim: "
        f"{claimed_ratios[kind]:.2f}x)"
        for kind in kinds
    ]
    outcome = (
        "reproduced"
        if reproduced
        else f"not reproduced: a ratio differs from the claim's by more than {tolerance:.0%}"
    )
    message = (
        f"Relative to the auto-increment key, the rerun took {' and '.join(parts)}. The ratios "
        "are the result's shape, which carries across hardware better than times do; the "
        f"furthest is {worst:.2f} of the claim's (tolerance {tolerance:.0%}): {outcome}."
    ) + _key_type_caveats(_mapping(claimed.get("runs")), rerun_runs or {})
    return Comparison(verdict, worst, message)


def _key_type_caveats(claimed_runs: dict, rerun_runs: dict) -> str:
    rerun_base = _mapping(rerun_runs.get("autoinc"))
    caveat = ""
    rerun_minutes = _number(rerun_base.get("minutes"))
    if rerun_minutes is not None and rerun_minutes * 60 < SHORT_KEY_TYPE_SECONDS:
        caveat += (
            f" The auto-increment table took {rerun_minutes * 60:,.2f} s: a run this short is "
            "timed as much on start-up as on its key, so ask for more rows for a firmer shape."
        )
    claimed_rows = _number(_mapping(claimed_runs.get("autoinc")).get("rows"))
    rerun_rows = _number(rerun_base.get("rows"))
    if claimed_rows and rerun_rows:
        caveat += _scale_caveat(claimed_rows / rerun_rows, "a small table's keys fit in memory")
    return caveat


# --- bulk loading (seed 003) ---------------------------------------------------------------------


@dataclass(frozen=True)
class LoadFigures:
    keys: int
    row_length: int
    rows: int
    rows_per_s: float
    kv_pairs_per_s: float
    mb_per_s: float


def compare_bulk_load(*, claimed: dict, rerun: LoadFigures, tolerance: float) -> Comparison:
    claimed_rate = _number(claimed.get("rows_per_s"))
    if claimed_rate is None:
        return Comparison(INCONCLUSIVE, None, "The entry states no load rate (rows/s).")
    ratio = rerun.rows_per_s / claimed_rate
    verdict, outcome = _speed_verdict(ratio, tolerance)
    claimed_rows = int(_number(claimed.get("rows")) or 0)
    message = (
        f"Loading {rerun.rows:,} rows of {rerun.keys} keys and {rerun.row_length} bytes, the "
        f"rerun ran at {rerun.rows_per_s:,.0f} rows/s ({rerun.kv_pairs_per_s:,.0f} key-value "
        f"pairs/s, {rerun.mb_per_s:,.1f} MB/s); the claim, {claimed_rate:,.0f} rows/s"
        f"{f' over {claimed_rows:,} rows' if claimed_rows else ''}. Ratio {ratio:.2f} "
        f"(tolerance {tolerance:.0%}): {outcome}."
    )
    if claimed_rows:
        message += _scale_caveat(claimed_rows / rerun.rows, "a small load's indexes fit in memory")
    return Comparison(verdict, ratio, message)


# --- crash recovery (seed 003) -------------------------------------------------------------------


@dataclass(frozen=True)
class RecoveryFigures:
    engine: str  # the rerun's: InnoDB, MyISAM... on MariaDB, PostgreSQL
    insert_rate: float  # rows/s the throttled run reached before the crash
    rows_at_crash: int  # rows the last report showed when the server was killed
    rows_committed: int  # rows the benchmark knew were committed when it lost the server
    rows_found: int  # rows in the table once it answered again
    recovery_seconds: float  # restart until the server accepted a connection and the table answered


def compare_recovery(*, claimed: dict, rerun: RecoveryFigures, tolerance: float) -> Comparison:
    claimed_seconds = _number(claimed.get("recovery_seconds"))
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
    verdict, outcome = _speed_verdict(ratio, tolerance, slower="slower to recover")
    claimed_rows = int(_number(claimed.get("rows_at_crash")) or 0)
    claimed_rate = _number(claimed.get("insert_rate")) or 0
    message = (
        f"Killed with SIGKILL at {rerun.rows_at_crash:,} rows while inserting at "
        f"{rerun.insert_rate:,.0f} rows/s (the claim: {claimed_rate:,.0f} rows/s"
        f"{f', {claimed_rows:,} rows' if claimed_rows else ''}), the server recovered in "
        f"{rerun.recovery_seconds:,.2f} s with {rerun.rows_found:,} rows found; the claim "
        f"recovered in {claimed_seconds:,.1f} s. Ratio {ratio:.2f} (tolerance {tolerance:.0%}): "
        f"{outcome}."
    )
    claimed_engine = str(claimed.get("engine") or "")
    if claimed_engine and claimed_engine.lower() != rerun.engine.lower():
        message += (
            f" The claim is {claimed_engine}'s; the rerun's server ran {rerun.engine}, so this "
            "compares the engines as much as the entry."
        )
    if claimed_rows:
        message += _scale_caveat(
            claimed_rows / max(rerun.rows_at_crash, 1),
            "recovery replays what was written since the last checkpoint, which a short run "
            "has little of",
        )
    return Comparison(verdict, ratio, message)
