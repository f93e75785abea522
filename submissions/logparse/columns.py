"""How the series' columns are held while an upload is checked, and how whole-series passes
read them: rate columns in 4 bytes where that loses nothing, and every pass a piece at a time.

The rates a log prints are whole numbers in most eras (Python iibench's i_ips, t_ips, i_qps,
i_dps): below 2**24 every one of them is exact in a float32, and a 2,000,000-report series
holds four such columns, 32 MB of the 146 MB an upload's worker peaks with. So the fast path
(columnar.Pending) keeps a column of NARROW_FIELDS as float32 while every value it read is
exact in it, and turns it back to float64 the moment one is not; the per-line path appends
Python floats and widens first (`widen`). A whole-series pass reads a column as it is `held`
and widens one of its `pieces` at a time (`wide_piece`): the same numbers, bit for bit, as if
never narrowed, and no whole-column copy (16 MB of a 2,000,000-report upload's peak, each).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from dataclasses import fields

import numpy as np

# Reports a whole-series pass reads at a time: its temporaries (a dozen float64 arrays of a
# piece) stay a few MB whatever the log's length.
PIECE = 1 << 16

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


def pieces(stop: int, start: int = 0) -> Iterator[slice]:
    """The reports from `start` to `stop`, PIECE at a time."""
    for at in range(start, stop, PIECE):
        yield slice(at, min(at + PIECE, stop))


def floats(column: array) -> np.ndarray:
    """A float column as float64: the column's own memory when it is held so, else an exact
    float64 copy of its float32 values (for short series; a whole-series pass reads `pieces`)."""
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
