"""Storing a parsed series compactly and turning it into what a page plots. Pure: numpy, and
pyarrow's zstd for the pieces."""

from __future__ import annotations

import hashlib
import io
import json
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import fields

import numpy as np
import pyarrow as pa
from tsdownsample import MinMaxLTTBDownsampler

from submissions.logparse.columnar import MEMORY_POOL
from submissions.logparse.columns import pieces
from submissions.logparse.model import Series
from submissions.measures.costs import per_row_curves

PACK_MAGIC = b"iiBench series 3\n"
# Pieces compressed with zstd at level 1: deflate at level 1 took 1.0 s of CPU for the 160 MB of
# a 2,000,000-report series, zstd 0.14 s, and its output is smaller. Series stored before
# (DEFLATED_MAGIC) are read as they are.
PACK_CODEC = pa.Codec("zstd", compression_level=1)
DEFLATED_MAGIC = b"iiBench series 2\n"
PIECE_VALUES = 1 << 18
PACK_THREADS = 2

# Per plotted series; a 2,000,000-sample run still sends at most this many points.
MAX_PLOT_POINTS = 5_000


def series_columns(series: Series) -> dict[str, np.ndarray]:
    """The series as numpy arrays sharing the array module's buffers (no copy)."""
    columns = {}
    for field in fields(series):
        column = getattr(series, field.name)
        if column is not None:
            columns[field.name] = np.frombuffer(column, dtype=column.typecode)
    return columns


def pack_columns(columns: dict[str, np.ndarray], *, release: bool = False) -> bytearray:
    """The columns packed: PACK_MAGIC, a JSON header naming each column's type, length and
    pieces, then the pieces. A piece is at most PIECE_VALUES values, their bytes shuffled (all
    first bytes, then all second bytes, ...: numbers of one size then compress far better)
    and compressed (PACK_CODEC); counting columns (int64: rows, lines, deletes, queries) are
    stored as differences. A column's pieces are compressed two at a time (the codec lets go
    of the interpreter while it works), and only two uncompressed pieces exist at once:
    packing a 2,000,000-sample series costs its packed size, not a copy of the series.
    `release`: each column is taken out of `columns` once it is packed, so that, held nowhere
    else, its memory goes back while the next ones are packed (an upload's peak)."""
    header = {
        "columns": [
            {"name": name, "dtype": _packed_dtype(column).str, "count": len(column)}
            for name, column in columns.items()
        ],
        "pieces": [],
    }
    pieces = []
    with ThreadPoolExecutor(max_workers=PACK_THREADS) as pool:
        for name in list(columns):
            column = columns[name]
            starts = range(0, max(len(column), 1), PIECE_VALUES)
            for piece in pool.map(lambda start, column=column: _pack_piece(column, start), starts):
                pieces.append(piece)
                header["pieces"].append([name, len(piece)])
            if release:
                del columns[name], column
    encoded = json.dumps(header).encode()
    # Grown in place while each piece is let go: a join would hold the pieces and their copy.
    packed = bytearray(PACK_MAGIC + len(encoded).to_bytes(4, "little") + encoded)
    for number, piece in enumerate(pieces):
        packed += piece
        pieces[number] = b""
    return packed


def _packed_dtype(column: np.ndarray) -> np.dtype:
    """Counting columns are packed as int64 and the others as float64 whatever they are held
    as (the line numbers are 4 bytes, exact rates 4, while an upload is checked): the packed
    bytes do not depend on it."""
    return np.dtype(np.int64) if column.dtype.kind in "iu" else np.dtype(np.float64)


def _pack_piece(column: np.ndarray, start: int) -> bytes:
    values = column[start : start + PIECE_VALUES].astype(_packed_dtype(column), copy=False)
    if values.dtype == np.int64:
        values = np.diff(values, prepend=np.int64(column[start - 1]) if start else np.int64(0))
    shuffled = np.ascontiguousarray(values.view(np.uint8).reshape(-1, values.itemsize).T)
    return PACK_CODEC.compress(shuffled, asbytes=True, memory_pool=MEMORY_POOL)


def _inflate_zstd(piece: bytes, size: int) -> bytes:
    return PACK_CODEC.decompress(
        piece, decompressed_size=size, asbytes=True, memory_pool=MEMORY_POOL
    )


def _inflate_deflated(piece: bytes, size: int) -> bytes:
    return zlib.decompress(piece)


def unpack_columns(blob: bytes) -> dict[str, np.ndarray]:
    if blob.startswith(PACK_MAGIC):
        inflate = _inflate_zstd
    elif blob.startswith(DEFLATED_MAGIC):
        inflate = _inflate_deflated
    else:
        return _unpack_npz(blob)
    at = len(PACK_MAGIC)
    size = int.from_bytes(blob[at : at + 4], "little")
    header = json.loads(blob[at + 4 : at + 4 + size])
    at += 4 + size
    columns = {
        item["name"]: np.empty(item["count"], dtype=np.dtype(item["dtype"]))
        for item in header["columns"]
    }
    filled = dict.fromkeys(columns, 0)
    for name, length in header["pieces"]:
        column, start = columns[name], filled[name]
        count = min(PIECE_VALUES, len(column) - start)
        piece = inflate(blob[at : at + length], count * column.itemsize)
        raw = np.frombuffer(piece, dtype=np.uint8)
        column[start : start + count] = (
            raw.reshape(column.itemsize, count).T.copy().view(column.dtype).reshape(count)
        )
        filled[name] += count
        at += length
    return {
        name: np.cumsum(column) if column.dtype == np.int64 else column
        for name, column in columns.items()
    }


def _unpack_npz(blob: bytes) -> dict[str, np.ndarray]:
    """Series packed before PACK_MAGIC: an .npz compressed with zlib as a whole."""
    with np.load(io.BytesIO(zlib.decompress(blob)), allow_pickle=False) as archive:
        return {
            name: np.cumsum(archive[name]) if archive[name].dtype == np.int64 else archive[name]
            for name in archive.files
        }


def downsample(x: np.ndarray, y: np.ndarray, points: int = MAX_PLOT_POINTS) -> tuple[list, list]:
    """At most `points` points that keep the curve's shape: MinMax-LTTB, plus the series' own
    minimum and maximum, which LTTB alone may drop (a one-interval stall is what a reader looks
    for). Samples that cannot be plotted (NaN, infinities) are left out. The columns go to the
    downsampler as they are (it reads int64, float32 and float64 alike, and picks the same
    points from a float32 column as from its float64 copy): no copy of a long column."""
    finite = np.isfinite(y)
    if not finite.all():
        x, y = x[finite], y[finite]
    if len(x) <= points:
        return x.tolist(), y.tolist()
    keep = MinMaxLTTBDownsampler().downsample(
        np.ascontiguousarray(x), np.ascontiguousarray(y), n_out=points - 2
    )
    extremes = np.array([np.argmin(y), np.argmax(y)], dtype=np.int64)
    keep = np.union1d(keep.astype(np.int64), extremes)
    return x[keep].tolist(), y[keep].tolist()


def plot_preview(columns: dict[str, np.ndarray], points: int = MAX_PLOT_POINTS) -> dict:
    """The curves an entry page draws: x = rows inserted, y = rows/s; and under `cost` what
    each interval cost per row (costs.per_row_curves), each only where the log measured it.
    `seconds` (y = elapsed seconds) lets the compare page put a curve against time without
    reading the packed series."""
    rows = columns["rows"]
    preview = {"count": len(rows)}
    for name in (
        "interval_rate",
        "cumulative_rate",
        "interval_delete_rate",
        "interval_query_rate",
        "seconds",
    ):
        if name in columns:
            x, y = downsample(rows, columns[name], points)
            preview[name] = {"x": x, "y": y}
    cost = {}
    for name, values in per_row_curves(columns).items():
        x, y = downsample(rows, values, points)
        if x:
            cost[name] = {"x": x, "y": y}
    if cost:
        preview["cost"] = cost
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
        # A piece at a time: a float32 column's float64 copy is 16 MB at the upload's peak.
        for piece in pieces(len(column)):
            digest.update(np.ascontiguousarray(column[piece], dtype=dtype))
    return digest.hexdigest()
