"""Storing a parsed series compactly and turning it into what a page plots. Pure: numpy only."""

from __future__ import annotations

import hashlib
import io
import zlib
from dataclasses import fields

import numpy as np
from tsdownsample import MinMaxLTTBDownsampler

from submissions.logparse.model import Series

PACK_LEVEL = 1

# Per plotted series; a 2,000,000-sample run still sends at most this many points.
MAX_PLOT_POINTS = 5_000


def series_columns(series: Series) -> dict[str, np.ndarray]:
    """The series as numpy arrays sharing the array module's buffers (no copy)."""
    columns = {}
    for field in fields(series):
        column = getattr(series, field.name)
        if column is not None:
            dtype = np.int64 if column.typecode == "q" else np.float64
            columns[field.name] = np.frombuffer(column, dtype=dtype)
    return columns


def pack_columns(columns: dict[str, np.ndarray]) -> bytes:
    """The columns as an .npz compressed with zlib level 1. Counting columns (int64: rows,
    lines, deletes, queries) are stored as differences, which compress far better; level 1 keeps
    a 2,000,000-sample series under a second to pack (numpy's savez_compressed took five)."""
    stored = {
        name: np.diff(column, prepend=column.dtype.type(0)) if column.dtype == np.int64 else column
        for name, column in columns.items()
    }
    buffer = io.BytesIO()
    np.savez(buffer, **stored)
    return zlib.compress(buffer.getbuffer(), PACK_LEVEL)


def unpack_columns(blob: bytes) -> dict[str, np.ndarray]:
    with np.load(io.BytesIO(zlib.decompress(blob)), allow_pickle=False) as archive:
        return {
            name: np.cumsum(archive[name]) if archive[name].dtype == np.int64 else archive[name]
            for name in archive.files
        }


def downsample(x: np.ndarray, y: np.ndarray, points: int = MAX_PLOT_POINTS) -> tuple[list, list]:
    """At most `points` points that keep the curve's shape: MinMax-LTTB, plus the series' own
    minimum and maximum, which LTTB alone may drop (a one-interval stall is what a reader looks
    for). Samples that cannot be plotted (NaN, infinities) are left out."""
    finite = np.isfinite(y)
    if not finite.all():
        x, y = x[finite], y[finite]
    if len(x) <= points:
        return x.tolist(), y.tolist()
    keep = MinMaxLTTBDownsampler().downsample(
        x.astype(np.float64), y.astype(np.float64), n_out=points - 2
    )
    extremes = np.array([np.argmin(y), np.argmax(y)], dtype=np.int64)
    keep = np.union1d(keep.astype(np.int64), extremes)
    return x[keep].tolist(), y[keep].tolist()


def plot_preview(columns: dict[str, np.ndarray], points: int = MAX_PLOT_POINTS) -> dict:
    """The curves an entry page draws: x = rows inserted, y = rows/s."""
    rows = columns["rows"]
    preview = {"count": len(rows)}
    for name in ("interval_rate", "cumulative_rate", "interval_delete_rate", "interval_query_rate"):
        if name in columns:
            x, y = downsample(rows, columns[name], points)
            preview[name] = {"x": x, "y": y}
    return preview


def series_fingerprint(columns: dict[str, np.ndarray]) -> str:
    """What makes two logs one run: the samples themselves, not the bytes that carried them.
    Blank lines, CRLF, gzip or trailing noise change the bytes and the line numbers, never the
    rows, times and rates, so the line column is left out."""
    digest = hashlib.sha256()
    for name in sorted(columns):
        if name == "line":
            continue
        column = columns[name]
        dtype = "<i8" if column.dtype.kind in "iu" else "<f8"
        digest.update(name.encode() + b"\0")
        digest.update(np.ascontiguousarray(column, dtype=dtype).tobytes())
    return digest.hexdigest()
