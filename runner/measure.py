"""What a rerun measured, read from the benchmark's parsed output, in the same keys as the
entry's track figures (Submission.track_figures) so the two sit side by side. Pure."""

from __future__ import annotations

import numpy as np

from runner.compare_tracks import (
    LoadFigures,
    deletes_start_row,
    key_type_ratios,
    query_points,
    terminal_rate,
)
from runner.workloads import KEY_TYPES, FifoScale
from submissions.logparse.model import ParsedLog


def _column(values) -> np.ndarray | None:
    if values is None:
        return None
    return np.frombuffer(values, dtype=np.int64 if values.typecode == "q" else np.float64)


def rows_and_seconds(parsed: ParsedLog) -> tuple[np.ndarray, np.ndarray]:
    return _column(parsed.series.rows), _column(parsed.series.seconds)


def _stated(parsed: ParsedLog, name: str, default: int = 0) -> int:
    stated = parsed.parameters.get(name)
    return int(stated.value) if stated is not None else default


def fifo_figures(parsed: ParsedLog, scale: FifoScale) -> dict:
    rows, seconds = rows_and_seconds(parsed)
    rate = terminal_rate(rows, seconds, scale.terminal_window_rows)
    start = deletes_start_row(rows, _column(parsed.series.deleted))
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


def query_figures(parsed: ParsedLog) -> dict:
    rows, _ = rows_and_seconds(parsed)
    threads = _stated(parsed, "query_threads")
    points = query_points(rows, _column(parsed.series.interval_query_rate), threads)
    summary = (
        f"{points[-1][1] * 1000:,.2f} ms per query at {points[-1][0]:,} rows "
        f"({threads} query thread{'s' if threads != 1 else ''})"
        if points
        else "no query completed"
    )
    return {"points": points, "query_threads": threads, "source": "rerun", "summary": summary}


def key_type_run(parsed: ParsedLog) -> dict:
    """One table of seed 004: its time, rows, write and read (range scan) rates."""
    rows, seconds = rows_and_seconds(parsed)
    totals = parsed.totals
    done_rows = int(totals.rows if totals and totals.rows else (rows[-1] if len(rows) else 0))
    elapsed = float(
        totals.seconds if totals and totals.seconds else (seconds[-1] if len(seconds) else 0)
    )
    queries = _column(parsed.series.queries)
    scans = int(queries[-1]) if queries is not None and len(queries) else 0
    return {
        "minutes": elapsed / 60,
        "rows": done_rows,
        "write_rate": done_rows / elapsed if elapsed > 0 else None,
        "read_rate": scans / elapsed if elapsed > 0 else None,
    }


def key_type_figures(runs: dict, writers: int, readers: int) -> dict:
    ratios = key_type_ratios(runs)
    parts = [f"{kind} {_seconds(runs[kind]['minutes'] * 60)}" for kind in KEY_TYPES if kind in runs]
    shape = ", ".join(f"{kind}/autoinc {ratio:.2f}" for kind, ratio in ratios.items())
    return {
        "runs": runs,
        "ratios": ratios,
        "writers": writers,
        "readers": readers,
        "summary": f"{'; '.join(parts)} ({shape})" if shape else "; ".join(parts),
    }


def load_figures(parsed: ParsedLog) -> LoadFigures | None:
    load = parsed.load
    if load is None:
        return None
    return LoadFigures(
        keys=load.keys,
        row_length=load.row_length,
        rows=load.rows,
        rows_per_s=load.rows_per_s,
        kv_pairs_per_s=load.kv_pairs_per_s,
        mb_per_s=load.mb_per_s,
    )


def load_result(figures: LoadFigures) -> dict:
    return {
        "keys": figures.keys,
        "row_length": figures.row_length,
        "rows": figures.rows,
        "rows_per_s": figures.rows_per_s,
        "kv_pairs_per_s": figures.kv_pairs_per_s,
        "mb_per_s": figures.mb_per_s,
        "summary": (
            f"loaded {figures.rows:,} rows at {figures.rows_per_s:,.0f} rows/s "
            f"({figures.kv_pairs_per_s:,.0f} key-value pairs/s, {figures.mb_per_s:,.1f} MB/s)"
        ),
    }


def _seconds(value: float) -> str:
    return f"{value:,.2f} s" if value < 10 else f"{value:,.0f} s"
