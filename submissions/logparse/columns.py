"""Rate columns held in 4 bytes where that loses nothing.

The rates a log prints are whole numbers in most eras (Python iibench's i_ips, t_ips, i_qps,
i_dps): below 2**24 every one of them is exact in a float32, and a 2,000,000-report series
holds four such columns, 32 MB of the 146 MB an upload's worker peaks with. So the fast path
(columnar.Pending) keeps a column of NARROW_FIELDS as float32 while every value it read is
exact in it, and turns it back to float64 the moment one is not; the per-line path appends
Python floats and widens first (`widen`). Whoever reads the values reads them with `floats`,
float64 whatever they are held as: the same numbers, bit for bit, as if never narrowed.
"""

from __future__ import annotations

from array import array
from dataclasses import fields

import numpy as np

NARROW_FIELDS = ("interval_rate", "cumulative_rate", "interval_delete_rate", "interval_query_rate")


class Narrow(array):
    """A float32 column. Appending a Python float to it would round it silently: refused, so
    a path that forgot to `widen` fails loudly in the tests instead."""

    def append(self, value):
        raise TypeError("a narrowed column: widen the series before appending floats to it")

    def extend(self, values):
        raise TypeError("a narrowed column: widen the series before appending floats to it")


def narrow(values: np.ndarray) -> Narrow:
    column = Narrow("f")
    column.frombytes(memoryview(np.ascontiguousarray(values, np.float32)).cast("B"))
    return column


def exact_in_float32(values: np.ndarray) -> bool:
    """Every value (NaN and infinities included) comes back from a float32 unchanged."""
    return bool(np.array_equal(values.astype(np.float32), values, equal_nan=True))


def floats(column: array) -> np.ndarray:
    """A float column as float64: the column's own memory when it is held so, else an exact
    float64 copy of its float32 values. A whole-series pass reads `held(column)` instead and
    widens a piece at a time (`wide_piece`): the copy of a 2,000,000-report column is 16 MB
    at the upload's peak."""
    values = held(column)
    return values if values.dtype == np.float64 else values.astype(np.float64)


def held(column: array) -> np.ndarray:
    """A column's values as it holds them (float32 when narrowed), without a copy."""
    return np.frombuffer(column, dtype=column.typecode)


def wide_piece(values: np.ndarray) -> np.ndarray:
    """A piece of a `held` float column as float64 (no copy when it is float64 already)."""
    return np.asarray(values, dtype=np.float64)


def wide(column: array) -> array:
    widened = array("d")
    widened.frombytes(memoryview(floats(column)).cast("B"))
    return widened


def widen(series) -> None:
    """Every narrowed column of the series back to float64, before values are appended one by
    one."""
    for field in fields(series):
        column = getattr(series, field.name)
        if isinstance(column, Narrow):
            setattr(series, field.name, wide(column))
