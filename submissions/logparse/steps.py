"""Medians of the steps between neighbouring values of a long column, in bounded memory.

`np.median(np.diff(values))` holds a float64 copy of the column (16 MB for a 2,000,000-report
series, at an upload's peak). Printed times and row counts step by a few distinct amounts
(10.0, 10.1, 9.9 s; 1,000,000 rows), so the steps are counted by value a piece at a time and
the medians read off the counts: the same numbers np.median gives. A column whose steps take
too many distinct values to count is left to np.median and its copy.
"""

from __future__ import annotations

import math

import numpy as np

from .columns import pieces

# Beyond this many distinct steps, counting them costs about what the copy does.
MOST_DISTINCT = 1 << 16


def median_step(values: np.ndarray, *, from_zero: bool = False) -> float:
    """The median of the differences between neighbouring values, as np.median computes it
    (NaN when one is NaN). `from_zero`: the first value counts as a step from 0."""
    counted = step_counts(values, from_zero=from_zero)
    if counted is None:
        return float(np.median(_steps(values, from_zero), overwrite_input=True))
    return counted_median(*counted)


def step_spread(values: np.ndarray, *, from_zero: bool = False) -> tuple[float, float]:
    """The median step and the median distance of the steps from it."""
    counted = step_counts(values, from_zero=from_zero)
    if counted is None:
        steps = _steps(values, from_zero)
        typical = float(np.median(steps))
        return typical, float(np.median(np.abs(steps - typical)))
    keys, counts = counted
    typical = counted_median(keys, counts)
    distances, where = np.unique(np.abs(keys - typical), return_inverse=True)
    return typical, counted_median(
        distances, np.bincount(where, weights=counts, minlength=len(distances)).astype(np.int64)
    )


def step_counts(
    values: np.ndarray, *, from_zero: bool = False
) -> tuple[np.ndarray, np.ndarray] | None:
    """Each distinct step (sorted, NaN last) and how often it comes; None beyond
    MOST_DISTINCT of them."""
    keys, counts = np.empty(0, dtype=np.result_type(values, np.int8)), np.empty(0, np.int64)
    for reports in pieces(len(values)):
        piece = np.diff(values[max(reports.start - 1, 0) : reports.stop])
        if reports.start == 0 and from_zero:
            piece = np.concatenate((values[:1], piece))
        found, found_counts = np.unique(piece, return_counts=True)
        keys, where = np.unique(np.concatenate((keys, found)), return_inverse=True)
        counts = np.bincount(
            where, weights=np.concatenate((counts, found_counts)), minlength=len(keys)
        ).astype(np.int64)
        if len(keys) > MOST_DISTINCT:
            return None
    return keys, counts


def counted_median(keys: np.ndarray, counts: np.ndarray) -> float:
    """The median of values given as sorted distinct values and their counts, as np.median
    computes it: NaN when one is NaN or there are none, the mean of the middle two of an even
    count."""
    total = int(counts.sum())
    if not total or (keys.dtype.kind == "f" and np.isnan(keys[-1])):
        return math.nan
    ends = np.cumsum(counts)

    def ranked(rank: int):
        return keys[np.searchsorted(ends, rank, side="right")]

    middle = total // 2
    if total % 2:
        return float(ranked(middle))
    return float(np.mean(np.array([ranked(middle - 1), ranked(middle)])))


def _steps(values: np.ndarray, from_zero: bool) -> np.ndarray:
    return np.diff(values, prepend=0) if from_zero else np.diff(values)
