"""Where a run was at a given row count, and its rate over the last rows: the one definition
the entry's figures (figures.py) and a rerun's judge (tracks/) both use, so a claim and its
rerun are measured the same way. Pure: numpy only.

Reports are samples of a continuous run: between two reports the run is taken to have gone
at a steady rate, so rows and seconds at any point are interpolated from the two reports
around it, counting from (0 rows, 0 s). A window therefore starts exactly where it should,
never on a stub of a last interval (a Python log's partial last second) nor on a whole
report interval before it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def _from_zero(values) -> np.ndarray:
    return np.concatenate(([0.0], np.asarray(values, dtype=np.float64)))


def seconds_at(rows, seconds, at_rows: float) -> float:
    """Elapsed seconds when `at_rows` rows were in, interpolated between reports from (0, 0);
    the last report's seconds past the end."""
    return float(np.interp(at_rows, _from_zero(rows), _from_zero(seconds)))


@dataclass(frozen=True)
class Window:
    start_rows: float
    start_seconds: float
    end_rows: float
    end_seconds: float

    @property
    def rows(self) -> float:
        return self.end_rows - self.start_rows

    @property
    def seconds(self) -> float:
        return self.end_seconds - self.start_seconds

    @property
    def rate(self) -> float | None:
        return self.rows / self.seconds if self.seconds > 0 and self.rows > 0 else None


def terminal_window(rows, seconds, window_rows: float) -> Window | None:
    """The last `window_rows` rows of the run (all of it when shorter), its start interpolated
    between the reports around it. None without reports."""
    if len(rows) == 0:
        return None
    end_rows, end_seconds = float(rows[-1]), float(seconds[-1])
    start_rows = max(0.0, end_rows - max(float(window_rows), 1.0))
    return Window(start_rows, seconds_at(rows, seconds, start_rows), end_rows, end_seconds)


def terminal_rate(rows, seconds, window_rows: float) -> float | None:
    """Rows/s over the last `window_rows` rows, interpolated between reports."""
    window = terminal_window(rows, seconds, window_rows)
    return window.rate if window else None
