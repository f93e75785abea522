"""The columnar fast path: a block of plain report lines read by Arrow's CSV reader (C++).

A format parser offers each block to `read_reports` first; None sends the block to the
format's per-line path, which is the reference: it reads everything (noise, trailers, a cut-off
last line, odd eras) and says which line is wrong. The fast path only takes a block the
per-line path would read to the very same numbers, so it is strict on purpose:

- every byte is a digit, a dot, the delimiter (TAB, or one space for the 2009 eras) or a line
  end: no sign, no exponent, no other blank, no letter
  (Arrow reads "0x10" as 16 where Python's int() refuses it; "nan" and negative numbers are
  errors the per-line path words); among such texts Arrow and int()/float() agree exactly
  (both round correctly, both refuse "", "." and "1.2.3" and a fraction in an integer column);
- every line is a report: as many rows as lines (a blank line makes one fewer), as many
  fields as the header (Arrow refuses a row with another count);
- the block does not hold the log's last line when that line has no newline (cut off);
- the reports follow each other as `order_error` asks (`in_order`), else the per-line path
  finds the line to blame;
- with `missing` (the C format's cost columns), a cell that is one `-` alone is a value the
  report could not measure: NaN in those columns, as the per-line path reads it; a `-` anywhere
  else (a sign, a `-` in another column) sends the block line by line.

What a report means (which column is which field, what follows from it) stays in each format's
parser, which hands its column picks here and appends the columns the same way both paths.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from .columns import NARROW_FIELDS, Narrow, exact_in_float32, narrow, wide
from .model import Series
from .reader import TextBlock

REPORT_BYTES = b"0123456789.\n"
# A byte that is none of REPORT_BYTES and not the delimiter, to find where to cut a block.
OTHER_BYTES = {
    "\t": re.compile(rb"[^0-9.\t\n]"),
    " ": re.compile(rb"[^0-9. \n]"),
}
# With dashes: a `-` is allowed as a byte, and MISPLACED_DASH finds one that is not a cell alone.
OTHER_BYTES_WITH_DASHES = re.compile(rb"[^0-9.\t\n-]")
MISPLACED_DASH = re.compile(rb"^-|[^\t]-|-[^\t\n]", re.M)
MAX_CUTS = 16
# Arrow's default pool (mimalloc) keeps what it freed: 15-25 MB more of a worker's peak while
# an upload is read than malloc's, which gives large blocks back (MALLOC_MMAP_THRESHOLD_).
MEMORY_POOL = pa.system_memory_pool()


class TwoDecimals(float):
    """A column kind: a rate as Java's %.2f prints it (digits, or digits, a dot and two
    digits). Java's parser reads 1234.5 as 12345 (the dot groups thousands unless two digits
    follow it), so a column that is not printed so goes line by line."""


TWO_DECIMALS = r"^[0-9]+(\.[0-9][0-9])?$"
ARROW_TYPES = {int: pa.int64(), float: pa.float64(), TwoDecimals: pa.string()}
NUMPY_TYPES = {int: np.int64, float: np.float64, TwoDecimals: np.float64}


def pieces(
    blocks: Iterable[tuple[int, Sequence[str]]], delimiter: str = "\t", *, dashes: bool = False
) -> Iterator[tuple[int, Sequence[str]]]:
    """(first line, lines) again, each block cut around the lines that cannot be plain reports
    (a header, a trailer, noise): the runs of plain lines between them go to the fast path
    whole, instead of the block going line by line for one Totals line. At most MAX_CUTS cuts
    a block: a block noisy throughout is left to the per-line path as it is. `dashes`: a `-`
    is a report's byte too (TAB only; `read_reports(missing=...)`)."""
    allowed = REPORT_BYTES + delimiter.encode() + (b"-" if dashes else b"")
    other = OTHER_BYTES_WITH_DASHES if dashes else OTHER_BYTES[delimiter]
    for first, block in blocks:
        data = getattr(block, "data", None)
        if data is None:
            yield first, block
            continue
        if not data.translate(None, allowed):  # the usual case: a block of reports only
            block.plain = True
            yield first, block
            continue
        for _ in range(MAX_CUTS):
            if not data or not data.translate(None, allowed):
                break
            at = other.search(data).start()
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            if start:
                head = data[: start - 1]
                count = head.count(b"\n") + 1
                yield first, TextBlock(head, first, count)
                first += count
            line = data[start:] if end < 0 else data[start:end]
            yield first, TextBlock(line, first, 1)
            first += 1
            if end < 0:
                data = b""
                break
            data = data[end + 1 :]
        else:
            yield first, TextBlock(data, first, data.count(b"\n") + 1)
            continue
        if data:
            yield first, TextBlock(data, first, data.count(b"\n") + 1)


def read_reports(
    block: Sequence[str],
    *,
    ncols: int,
    kinds: Mapping[int, type],
    unterminated_line: int | None,
    delimiter: str = "\t",
    missing: frozenset[int] = frozenset(),
) -> dict[int, np.ndarray] | None:
    """The picked columns (position -> int or float) of a block made only of report lines,
    one entry per line; None when the per-line path must read the block. With a space as the
    delimiter, exactly one space separates two numbers (two make an empty field: refused).
    `missing`: float columns where a cell `-` alone is an unmeasured value, read as NaN."""
    data = getattr(block, "data", None)  # a slice of a block is a plain list: per line
    if not data:
        return None
    allowed = REPORT_BYTES + delimiter.encode() + (b"-" if missing else b"")
    if not block.plain and data.translate(None, allowed):
        return None
    dashed = b"-" in data
    if dashed and (not missing or MISPLACED_DASH.search(data)):
        return None
    first = block.first_line
    if unterminated_line is not None and first <= unterminated_line < first + len(block):
        return None
    names = [f"c{index}" for index in range(ncols)]
    try:
        table = pacsv.read_csv(
            pa.BufferReader(data),
            read_options=pacsv.ReadOptions(column_names=names, use_threads=False),
            parse_options=pacsv.ParseOptions(
                delimiter=delimiter, quote_char=False, double_quote=False, escape_char=False
            ),
            convert_options=pacsv.ConvertOptions(
                column_types={names[index]: ARROW_TYPES[kind] for index, kind in kinds.items()},
                include_columns=[names[index] for index in kinds],
                null_values=["-"] if dashed else [],
                strings_can_be_null=False,
            ),
            memory_pool=MEMORY_POOL,
        )
    except (pa.ArrowException, ValueError):
        return None
    if table.num_rows != len(block):  # a blank line: its number would shift the others
        return None
    columns = {}
    for index, kind in kinds.items():
        column = table.column(names[index])
        if column.null_count and index not in missing:  # a `-` where a number must be
            return None
        if kind is TwoDecimals:
            # Imported here: Arrow's compute module is 9 MB of every worker's memory, and only
            # Java's columns need it.
            import pyarrow.compute as pc

            matched = pc.match_substring_regex(column, TWO_DECIMALS, memory_pool=MEMORY_POOL)
            if not pc.all(matched, memory_pool=MEMORY_POOL).as_py():
                return None
            # Arrow's own number reading, as above.
            column = pc.cast(column, pa.float64(), memory_pool=MEMORY_POOL)
        columns[index] = np.ascontiguousarray(column.to_numpy(), NUMPY_TYPES[kind])
    return columns


def read_blocks_ahead(
    pieces: Iterable[tuple[int, Sequence[str]]],
    read: Callable[[Sequence[str]], dict[int, np.ndarray] | None],
) -> Iterator[tuple[int, Sequence[str], dict[int, np.ndarray] | None]]:
    """(first line, block, `read(block)`) for every piece, each block read on a thread of its
    own one block ahead: Arrow lets go of the interpreter while it reads, so on two cores the
    next block is read while this one is added to the series (and the .gz inflated on a third
    thread). `read` must depend on nothing the adding changes (`read_reports` does not)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        held = None
        for first, block in pieces:
            future = pool.submit(read, block)
            if held is not None:
                yield held[0], held[1], held[2].result()
            held = (first, block, future)
        if held is not None:
            yield held[0], held[1], held[2].result()


class Pending:
    """Where the fast path puts what it read: straight into the series' arrays, a block at a
    time, copied out of Arrow's buffers (which are then reused for the next block)."""

    def __init__(self, series: Series, *, narrow: bool = False):
        """`narrow`: hold rate columns as float32 where exact (columns.py); only for a parser
        that reads the series' columns afresh and `widen`s before appending line by line."""
        self.series = series
        self.narrow = narrow
        # Rate columns whose values held before this parse's first block were examined for
        # narrowing (columns.py): once, not on every block.
        self._examined: set[str] = set()

    def __len__(self) -> int:
        return len(self.series)

    def in_order(self, rows: np.ndarray, seconds: np.ndarray, *, grows: bool) -> bool:
        """True when no report of the block, nor its first after the last one read, is one
        that `LogParse.order_error` refuses (rows or time going down, a repeat)."""
        series = self.series
        if len(series):
            rows = np.concatenate(([series.rows[-1]], rows))
            seconds = np.concatenate(([series.seconds[-1]], seconds))
        if len(rows) < 2:
            return True
        rows_step, seconds_step = np.diff(rows), np.diff(seconds)
        repeat = rows_step == 0 if grows else (rows_step == 0) & (seconds_step == 0)
        return bool((rows_step >= 0).all() and (seconds_step >= 0).all() and not repeat.any())

    def add(self, block: Sequence[str], columns: Mapping[str, np.ndarray]) -> None:
        """A block's columns (series field -> one value per line; `line` is added here). A rate
        column is held as float32 while every value in it is exact so (columns.py)."""
        for name, values in {**columns, "line": line_numbers(block)}.items():
            column = getattr(self.series, name)
            if self.narrow and name in NARROW_FIELDS:
                column = self._narrowed(name, column, values)
            extend(column, values)

    def _narrowed(self, name: str, column: array, values: np.ndarray) -> array:
        """The column to extend with `values`: narrowed, kept, or widened back to float64."""
        if isinstance(column, Narrow):
            if exact_in_float32(values):
                return column
            column = wide(column)
        elif name not in self._examined:
            self._examined.add(name)
            held = np.frombuffer(column, dtype=column.typecode)
            if exact_in_float32(held) and exact_in_float32(values):
                column = narrow(held)
        setattr(self.series, name, column)
        return column


def extend(column: array, values: np.ndarray) -> None:
    """Append numbers to an `array` column, converted to its type, with no Python objects."""
    typed = np.ascontiguousarray(values, column.typecode)
    column.frombytes(memoryview(typed).cast("B"))


def line_numbers(block: Sequence[str]) -> np.ndarray:
    # The reader counts at most MAX_LINES lines: they fit the line column's 4 bytes.
    return np.arange(block.first_line, block.first_line + len(block), dtype=np.int32)
