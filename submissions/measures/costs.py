"""What each row cost, from a series' cost columns (iibench-c formats 2 and 3, Python's max_i). Pure:
numpy only.

The benchmark prints each interval's totals (CPU seconds, bytes, device requests); a row's
cost is that total over the rows the interval inserted. What a log does not carry stays
absent (None, or NaN inside a curve): it is never shown as zero.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

KIB = 1024
GIB = 1024**3


@dataclass(frozen=True)
class PerRowCost:
    """One per-row cost, declared once: the figure's name (CostFigures, the Submission column
    and the entry API's field), the log column it comes from, and how pages, the API, the board
    and its CSV name and explain it."""

    figure: str
    source: str  # the interval total the log prints (iibench-c formats 2 and 3)
    scale: float  # from the source's unit to the figure's
    unit: str
    label: str  # the entry page's tile ("" : no tile)
    meaning: str  # the API's help text
    board: str = ""  # its name on the board's API and CSV ("" : not on the board)


PER_ROW_COSTS = (
    PerRowCost(
        "write_kb_per_row", "write_bytes", 1 / KIB, "KiB", "Written per row",
        "KiB written on the data device per row, terminal window.", board="write_kb_per_row",
    ),
    PerRowCost(
        "reads_per_row", "read_ops", 1.0, "", "",
        "Device read requests per row, terminal window.",
    ),
    PerRowCost(
        "server_cpu_us_per_row", "server_cpu_s", 1e6, "µs", "Server CPU per row",
        "Server CPU µs per row, terminal window.", board="cpu_us_per_row",
    ),
    PerRowCost(
        "client_cpu_us_per_row", "client_cpu_s", 1e6, "µs", "Client CPU per row",
        "Benchmark client CPU µs per row, terminal window.",
    ),
    PerRowCost(
        "machine_cpu_us_per_row", "machine_cpu_s", 1e6, "µs", "Machine CPU per row",
        "The whole machine's CPU µs per row (client, server and the rest), terminal window; "
        "null: not in the log.",
        board="machine_cpu_us_per_row",
    ),
)  # fmt: skip
# The board's cost columns, in its order: the database's size, then the per-row costs it shows.
BOARD_COSTS = tuple(cost for cost in PER_ROW_COSTS if cost.board)


def interval_rows(rows: np.ndarray) -> np.ndarray:
    """Rows inserted in each report interval (the first interval starts at 0 rows)."""
    return np.diff(rows, prepend=rows.dtype.type(0)).astype(np.float64)


def per_row_curves(columns: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per report interval, against the report's rows: latency, CPU microseconds per row,
    KiB written and device reads per row, and the table's size (GiB and GB per 100M rows)."""
    rows = columns["rows"]
    per_row = {cost.figure: (cost.source, cost.scale) for cost in PER_ROW_COSTS}
    per_row["read_kb_per_row"] = ("read_bytes", 1 / KIB)  # a curve only: no figure of its own
    # Only when a per-row curve needs it: for 2,000,000 reports it is 16 MB of an upload's peak.
    if any(source in columns for source, _ in per_row.values()):
        inserted = interval_rows(rows)
    with np.errstate(divide="ignore", invalid="ignore"):
        curves = {
            name: np.where(inserted > 0, columns[source] * scale / inserted, np.nan)
            for name, (source, scale) in per_row.items()
            if source in columns
        }
        if "db_size_bytes" in columns:
            size = columns["db_size_bytes"]
            curves["db_size_gib"] = size / GIB
            curves["gb_per_100m_rows"] = np.where(rows > 0, size / rows * 1e8 / 1e9, np.nan)
    for name in ("latency_p50_ms", "latency_p99_ms", "latency_max_ms"):
        if name in columns:
            curves[name] = columns[name]
    return curves


@dataclass(frozen=True)
class CostFigures:
    """An entry's cost figures; None where its log does not carry what they need. Per-row
    figures are over the terminal-rate window, like the terminal rate they stand beside."""

    db_size_bytes: int | None  # at the last report
    gb_per_100m_rows: float | None  # the last report's size over its rows
    write_kb_per_row: float | None
    reads_per_row: float | None
    server_cpu_us_per_row: float | None
    client_cpu_us_per_row: float | None
    machine_cpu_us_per_row: float | None = None  # the whole machine: iibench-c format 3

    @classmethod
    def absent(cls) -> CostFigures:
        return cls(None, None, None, None, None, None)

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def _window_total(column: np.ndarray | None, in_window: np.ndarray) -> float | None:
    """The window's total, or None when any of its intervals was not measured."""
    if column is None or not in_window.any():
        return None
    values = column[in_window]
    if np.isnan(values).any():
        return None
    return float(values.sum())


def _last_before(in_window: np.ndarray) -> int | None:
    """The last report before the window, found without a copy of the reports before it."""
    before = ~in_window
    return len(before) - 1 - int(np.argmax(before[::-1])) if before.any() else None


def cost_figures(columns: dict[str, np.ndarray], *, window_start_row: int) -> CostFigures:
    """The window's per-row costs from the report intervals that end inside it, over the rows
    those intervals inserted: a cost is printed per interval, so an interval the window starts
    in counts whole (the terminal rate's window may start between two reports)."""
    rows = columns["rows"]
    last_rows = int(rows[-1]) if len(rows) else 0
    in_window = rows > window_start_row
    last_before = _last_before(in_window)
    window_rows = last_rows - (int(rows[last_before]) if last_before is not None else 0)

    def per_row(name: str, scale: float) -> float | None:
        total = _window_total(columns.get(name), in_window)
        return total * scale / window_rows if total is not None and window_rows > 0 else None

    size = columns.get("db_size_bytes")
    final_size = float(size[-1]) if size is not None and len(size) else float("nan")
    has_size = not np.isnan(final_size)
    return CostFigures(
        db_size_bytes=int(final_size) if has_size else None,
        gb_per_100m_rows=final_size / last_rows * 1e8 / 1e9 if has_size and last_rows else None,
        **{cost.figure: per_row(cost.source, cost.scale) for cost in PER_ROW_COSTS},
    )


# A run reads at least this many device requests per row where its reads set its pace (past
# an InnoDB cliff: 1.4-1.7 measured); below it the time per read measures the CPU, not a disk.
READ_BOUND_PER_ROW = 0.1


@dataclass(frozen=True)
class ReadPace:
    """How fast a run's reads went, as the run felt them: its seconds over its device reads
    (the whole run's time, CPU included, so a disk's pace only where reads set the run's)."""

    ms_per_read: float
    reads_per_row: float

    def as_dict(self) -> dict:
        return {"ms_per_read": self.ms_per_read, "reads_per_row": self.reads_per_row}


def read_pace(
    rows: np.ndarray, seconds: np.ndarray, read_ops: np.ndarray | None, *, from_row: float
) -> ReadPace | None:
    """The run's pace of reads over the report intervals that end past `from_row` (whole
    intervals, as `cost_figures`). None when the log does not count reads there (not format
    2 or 3, or an interval unmeasured) or the run hardly read (READ_BOUND_PER_ROW)."""
    if read_ops is None or not len(rows):
        return None
    in_window = rows > from_row
    reads = _window_total(read_ops, in_window)
    last_before = _last_before(in_window)
    start_rows, start_seconds = (
        (float(rows[last_before]), float(seconds[last_before]))
        if last_before is not None
        else (0.0, 0.0)
    )
    window_rows = float(rows[-1]) - start_rows
    if not reads or window_rows <= 0 or reads / window_rows < READ_BOUND_PER_ROW:
        return None
    return ReadPace((float(seconds[-1]) - start_seconds) * 1e3 / reads, reads / window_rows)


def cost_tiles(*, db_size_bytes: int | None, rows: int, window_rows: int, **per_row: float | None):
    """(label, value, note) for the entry page; empty when the log carries no cost at all.
    `per_row` holds the entry's per-row figures by name (PER_ROW_COSTS)."""
    tiled = [cost for cost in PER_ROW_COSTS if cost.label]
    if db_size_bytes is None and all(per_row.get(cost.figure) is None for cost in tiled):
        return []
    absent = "not in this log"
    window = f"over the last {window_rows:,} rows"
    size_note = absent
    if db_size_bytes is not None and rows:
        size_note = f"{db_size_bytes / rows * 1e8 / 1e9:,.1f} GB per 100M rows"
    return [
        (
            "Database size",
            "—" if db_size_bytes is None else f"{db_size_bytes / GIB:,.2f} GiB",
            size_note,
        ),
        *(
            _per_row_tile(cost.label, per_row.get(cost.figure), cost.unit, window, absent)
            for cost in tiled
        ),
    ]


def _per_row_tile(
    label: str, value: float | None, unit: str, window: str, absent: str
) -> tuple[str, str, str]:
    if value is None:
        return label, "—", absent
    return label, f"{value:,.2f} {unit}", window
