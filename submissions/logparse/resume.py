"""New report lines of a C benchmark log read behind what was read before, without reading it
again: a streamed run's batch (live appends) read as `parse_log` would read it after the run's
head, when the batch is nothing but plain reports.

`report_layout(head)` reads the head once with the real parser and keeps what a report line's
reading depends on (its columns); `plain_reports(layout, lines, after_rows, after_seconds)`
reads the batch's lines against it and the report before them. Anything the parser would read
in another way (a `# ` line, an empty line, a field that is not a plain number, a report out of
order, a cut line) is not taken: None, and the caller parses as before. Pure: no Django.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from itertools import chain

from .c_format import COST_COLUMNS, INTEGER_COLUMNS, CFormatParse
from .detect import detect
from .errors import LogError
from .reader import LogReader

# What the parser reads as a plain number on every path (line by line and columnar): digits,
# at most one point. Signs, exponents, "nan" and "inf" are read otherwise or refused: not here.
WHOLE = r"\d{1,18}"
DECIMAL = r"\d{1,20}(?:\.\d{1,20})?"
UNMEASURED = "-"
# A column the parser does not read (none today): digits, points and dashes only, so that no
# reading of the line (the reader breaks lines at a CR too; the columnar path reads CSV) can
# differ.
UNREAD = r"[0-9.-]{0,40}"
SERIES = ("rows", "seconds", "interval_ips", "cumulative_ips")


@dataclass(frozen=True)
class ReportLayout:
    """A report line of one log, as one pattern: it matches a line the parser reads as a
    plain report, capturing rows, seconds, the interval and cumulative rates and then each cost
    column the header has (`costs`, in COST_COLUMNS' order; "-" where unmeasured)."""

    pattern: re.Pattern
    costs: tuple[str, ...]


@dataclass(frozen=True)
class PlainReport:
    rows: int
    seconds: float
    interval_rate: float
    cumulative_rate: float
    cost: dict[str, float]  # the cost columns measured ("-" left out)


def report_layout(head: str) -> ReportLayout | None:
    """The report layout of a C benchmark log's head (its header, and any reports after it),
    read by the C format's parser; None when the head is not one the parser reads to its end
    with its column header known, before any summary, every line terminated."""
    if not head.endswith("\n"):
        return None
    reader = LogReader(io.BytesIO(head.encode()), max_expanded_bytes=1 << 30, max_line_chars=65536)
    blocks = reader.blocks()
    try:
        detection, seen = detect(blocks)
        if detection.format != "iibench-c":
            return None
        parser = CFormatParse(reader, detection, {})
        parser.parse(chain(seen, blocks))
    except (LogError, ValueError):
        return None
    if parser.columns is None or parser.summary_line is not None:
        return None
    return _layout(parser.columns, parser.ncols)


def _layout(columns: dict[str, int], ncols: int) -> ReportLayout:
    costs = tuple(name for name in COST_COLUMNS if name in columns)
    captured = {at: name for name, at in columns.items() if name in SERIES or name in costs}
    cells = []
    for at in range(ncols):
        name = next((name for name, where in columns.items() if where == at), None)
        if name is None:
            cell = UNREAD
        elif name in INTEGER_COLUMNS:
            cell = WHOLE
        elif name in costs:
            cell = f"{UNMEASURED}|{DECIMAL}"
        else:
            cell = DECIMAL
        cells.append(f"(?P<{captured[at]}>{cell})" if at in captured else f"(?:{cell})")
    # A line the parser reads as a report starts with a digit (or "-": not taken here).
    return ReportLayout(re.compile("(?=\\d)" + "\t".join(cells)), costs)


def plain_reports(
    layout: ReportLayout, lines: list[str], after_rows: int, after_seconds: float
) -> list[PlainReport] | None:
    """Each line read as a report after one of `after_rows` rows at `after_seconds`, one report
    per line: what the C format's parser reads from them behind the head; None when a line is
    anything but a plain report in order (the parser then reads the batch, as before)."""
    reports = []
    rows_before, seconds_before = after_rows, after_seconds
    match, costs = layout.pattern.fullmatch, layout.costs
    for line in lines:
        found = match(line)
        if found is None:
            return None
        rows, seconds, interval_rate, cumulative_rate, *cells = found.group(*SERIES, *costs)
        rows, seconds = int(rows), float(seconds)
        if rows <= rows_before or seconds < seconds_before:
            return None  # the parser's own order check decides
        cost = {
            name: float(cell) for name, cell in zip(costs, cells, strict=True) if cell != UNMEASURED
        }
        reports.append(
            PlainReport(rows, seconds, float(interval_rate), float(cumulative_rate), cost)
        )
        rows_before, seconds_before = rows, seconds
    return reports
