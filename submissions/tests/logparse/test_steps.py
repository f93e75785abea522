from __future__ import annotations

import math

import numpy as np
import pytest

from submissions.logparse import columns, steps
from submissions.logparse.steps import median_step, step_spread


def numpy_medians(values: np.ndarray, from_zero: bool) -> tuple[float, float]:
    differences = np.diff(values, prepend=0) if from_zero else np.diff(values)
    if not len(differences):
        return math.nan, math.nan  # np.median's answer, without its warning
    typical = float(np.median(differences))
    return typical, float(np.median(np.abs(differences - typical)))


def same(found: float, expected: float) -> bool:
    return found == expected or (math.isnan(found) and math.isnan(expected))


rng = np.random.default_rng(2008)
PRINTED_TIMES = np.round(np.cumsum(rng.uniform(9.5, 10.5, 5_001)), 1)
ROW_COUNTS = np.cumsum(rng.integers(999_000, 1_001_000, 5_000)).astype(np.int64)
WITH_NAN = PRINTED_TIMES.copy()
WITH_NAN[2_500] = np.nan


@pytest.mark.parametrize("from_zero", [False, True])
@pytest.mark.parametrize(
    "values",
    [
        PRINTED_TIMES,
        PRINTED_TIMES[:-1],  # an even number of steps: the mean of the middle two
        ROW_COUNTS,
        WITH_NAN,
        np.array([7.5]),
        np.array([3.0, 10.0]),
    ],
    ids=["times", "times-even", "rows", "nan", "one", "two"],
)
def test_the_medians_are_numpys_counted_a_piece_at_a_time(monkeypatch, values, from_zero):
    # Pieces of 1,000 values: the counts of five pieces are merged.
    monkeypatch.setattr(columns, "PIECE", 1_000)
    typical, spread = numpy_medians(values, from_zero)
    assert same(median_step(values, from_zero=from_zero), typical)
    found_typical, found_spread = step_spread(values, from_zero=from_zero)
    assert same(found_typical, typical) and same(found_spread, spread)


def test_steps_of_too_many_distinct_values_are_left_to_numpy(monkeypatch):
    monkeypatch.setattr(columns, "PIECE", 1_000)
    monkeypatch.setattr(steps, "MOST_DISTINCT", 100)
    values = np.cumsum(rng.uniform(0, 1, 5_000))
    assert steps.step_counts(values) is None
    assert median_step(values) == float(np.median(np.diff(values)))
    assert step_spread(values) == numpy_medians(values, False)


def test_no_step_has_no_median():
    assert math.isnan(median_step(np.array([5.0])))
    assert math.isnan(median_step(np.array([], dtype=np.float64), from_zero=True))
