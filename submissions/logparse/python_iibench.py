"""Python iibench (mdcallag/mytools bench/ibench/iibench.py), every era since 2009.

Columns are picked by header name. What each era prints, from its source:

- 2009-03: `#rows #seconds cum_ips last_ips #queries cum_qps last_qps`, `#seconds` is the
  total (`now - start_time`, "%.0f").
- 2009-03b: `#rows #seconds cum_ips table_size last_ips #queries cum_qps last_qps`; no source
  of this era survives, so whether `#seconds` is the interval or the total is read from the
  numbers (which one makes cum_ips = rows / seconds), and said in an "assumption" marker.
- 2009-04 to 2019: adds `#total_seconds`; `#seconds` is the interval (`now - prev_time`).
  A line every `rows_per_report` rows.
- 2020 on: TAB separated, a line every `secs_per_report` seconds; `i_` is the interval and
  `t_` the total; 2020-09 adds `retry_i retry_q`, 2023 adds deletes (`i_dps t_dps max_d t_del
  retry_d`).
"""

from __future__ import annotations

import math
import re
from array import array
from collections.abc import Callable, Iterable

import numpy as np

from . import columnar
from .columns import widen
from .common import LogParse, blocks_after, to_float, to_int, trim_series
from .detect import PYTHON_HEADER_STARTS
from .errors import LogError, num, quote
from .model import Marker, Totals
from .steps import median_step

# Series field -> column name, per family.
TAB_COLUMNS = {
    "rows": "t_ins",
    "seconds": "t_sec",
    "interval_rate": "i_ips",
    "cumulative_rate": "t_ips",
    "deleted": "t_del",
    "interval_delete_rate": "i_dps",
    "queries": "t_query",
    "interval_query_rate": "i_qps",
}
KINDS = {
    "rows": int,
    "seconds": float,
    "interval_rate": float,
    "cumulative_rate": float,
    "deleted": int,
    "interval_delete_rate": float,
    "queries": int,
    "interval_query_rate": float,
    "latency_max_ms": float,
}
EXTRAS = ("deleted", "interval_delete_rate", "queries", "interval_query_rate")
QUERY_EXTRAS = ("queries", "interval_query_rate")
SPACE_COLUMNS = {
    "rows": "#rows",
    "seconds": "#seconds",
    "interval_rate": "last_ips",
    "cumulative_rate": "cum_ips",
    "queries": "#queries",
    "interval_query_rate": "last_qps",
}

TOTALS = re.compile(r"^Totals:\s*(\S+) secs, (\S+) rows/sec, (\d+) rows\b")
CREATED_AFTER = "Created secondary indexes in"
DDL_ENGINE = re.compile(r"\bengine\s*=\s*(\w+)")
DDL_KEY = re.compile(r"(?<!primary )\b(?:unique\s+)?key\s+\w+\s*\(")


def looks_like_report(stripped: str) -> bool:
    head = stripped[0]
    if head.isdigit() or (head in "-+." and len(stripped) > 1 and stripped[1].isdigit()):
        return True
    # A report whose first number was edited to NaN or infinity is still a report: the line
    # is refused with that number, not skipped as noise.
    return stripped.split(None, 1)[0].lstrip("+-").lower() in NOT_FINITE


NOT_FINITE = ("nan", "inf", "infinity")


class PythonIibenchParse(LogParse):
    def parse(self, blocks: Iterable[list[str]]) -> None:
        self.names = self.detection.header.split()
        # Times print as '%.1f' in every era but the first, whose '%.0f' prints whole seconds.
        self.time_precision = 1.0 if self.format == "python-iibench-2009-03" else 0.1
        self.ncols = len(self.names)
        self.column = {name: i for i, name in enumerate(self.names)}
        self.tab = "t_ins" in self.column
        words = TAB_COLUMNS if self.tab else SPACE_COLUMNS
        self.column_words.update(words)
        if "#total_seconds" in self.column:
            self.column_words["seconds"] = "#total_seconds"
        if self.tab:
            self._parse_tab(blocks)
            self._report_every_seconds()
        else:
            self._parse_space(blocks)
            self._drop_zero_extras()
        self.check_series()

    # -- 2020 on: TAB separated, the hot path -----------------------------------------------

    def _parse_tab(self, blocks: Iterable[list[str]]) -> None:
        # Rates held as float32 while exact (columns.py): 32 MB less for 2,000,000 reports.
        self.pending = columnar.Pending(self.series, narrow=True)
        picks = self._tab_columns()
        kinds = {position: KINDS[field] for field, position in picks.items()}

        def read(block):
            return columnar.read_reports(
                block,
                ncols=self.ncols,
                kinds=kinds,
                unterminated_line=self.reader.unterminated_line,
            )

        pieces = columnar.pieces(blocks_after(blocks, self.detection.header_line))
        for first, block, read_block in columnar.read_blocks_ahead(pieces, read):
            if not self._tab_block_fast(block, read_block):
                if self._may_report(block):  # not for the Totals and Done lines alone
                    widen(self.series)
                self._tab_block(first, block)
        self._drop_zero_extras()

    def _may_report(self, block: list[str]) -> bool:
        """Whether the per-line path may append a report from this block (as `_other` would
        read one), rather than only trailers and noise."""
        return any(
            text.count("\t") + 1 == self.ncols
            or (bool(stripped := text.strip()) and looks_like_report(stripped))
            for text in block
        )

    def _tab_columns(self) -> dict[str, int]:
        """Series field -> column position. Without delete columns the deletes are read from
        the query columns: harmless, they are dropped with the other extras."""
        column = self.column
        found = {field: column[name] for field, name in TAB_COLUMNS.items() if name in column}
        found.setdefault("deleted", column["t_query"])
        found.setdefault("interval_delete_rate", column["i_qps"])
        if "max_i" in column:
            found["latency_max_ms"] = column["max_i"]
        return found

    def _latency(self) -> array:
        """The interval's worst INSERT latency in ms, from max_i (2020 on)."""
        if self.series.latency_max_ms is None:
            self.series.latency_max_ms = array("d")
        return self.series.latency_max_ms

    def _tab_block_fast(self, block: list[str], read: dict[int, np.ndarray] | None) -> bool:
        """A block of plain reports, `read` as columns (columnar.py, a block ahead); False when
        the block must be read line by line."""
        picks = self._tab_columns()
        if read is None:
            return False
        values = {field: read[position] for field, position in picks.items()}
        if "latency_max_ms" in values:
            self._latency()
            values["latency_max_ms"] = values["latency_max_ms"] / 1000  # µs to ms
        pending, series = self.pending, self.series
        if not pending.in_order(values["rows"], values["seconds"], grows=False):
            return False
        if series.queries is None:
            started = np.flatnonzero((values["queries"] != 0) | (values["deleted"] != 0))
            if len(started):
                self._open_extras(zeros=len(pending) + int(started[0]))
                for field in EXTRAS:
                    values[field] = values[field][started[0] :]
        if series.queries is None:
            kept = [field for field in values if field not in EXTRAS]
        elif series.deleted is None:
            kept = [field for field in values if field not in EXTRAS or field in QUERY_EXTRAS]
        else:
            kept = list(values)
        pending.add(block, {field: values[field] for field in kept})
        return True

    def _tab_block(self, first: int, block: list[str]) -> None:
        """The per-line path: every line of a block, reports, noise and trailers."""
        series, ncols = self.series, self.ncols
        picks = self._tab_columns()
        i_rows, i_sec = picks["rows"], picks["seconds"]
        i_int, i_cum, i_q = picks["interval_rate"], picks["cumulative_rate"], picks["queries"]
        i_del, i_qr, i_dr = (
            picks["deleted"],
            picks["interval_query_rate"],
            picks["interval_delete_rate"],
        )
        rows_add, seconds_add = series.rows.append, series.seconds.append
        interval_add, cumulative_add = series.interval_rate.append, series.cumulative_rate.append
        line_add = series.line.append
        # Deletes and queries are zero in most runs: no arrays for them until they start.
        query_add = query_rate_add = delete_add = delete_rate_add = None
        if series.queries is not None:
            query_add, query_rate_add = series.queries.append, series.interval_query_rate.append
            if series.deleted is not None:
                delete_add = series.deleted.append
                delete_rate_add = series.interval_delete_rate.append
        # max_i: the worst INSERT response time of the interval, in microseconds.
        i_max = picks.get("latency_max_ms")
        max_add = self._latency().append if i_max is not None else None
        prev_rows = series.rows[-1] if len(series) else -1
        prev_seconds = series.seconds[-1] if len(series) else -math.inf
        for line, text in enumerate(block, first):
            fields = text.split("\t")
            if len(fields) != ncols:
                fields = self._other(line, text)
                if fields is None:
                    continue
            try:
                rows = int(fields[i_rows])
                seconds = float(fields[i_sec])
                interval = float(fields[i_int])
                cumulative = float(fields[i_cum])
                if rows <= prev_rows or seconds < prev_seconds:
                    self._check_order(line, rows, seconds)
                rows_add(rows)
                seconds_add(seconds)
                interval_add(interval)
                cumulative_add(cumulative)
                if query_add is None and (int(fields[i_q]) or int(fields[i_del])):
                    query_add, query_rate_add, delete_add, delete_rate_add = self._start_extras()
                if query_add is not None:
                    query_add(int(fields[i_q]))
                    query_rate_add(float(fields[i_qr]))
                    if delete_add is not None:
                        delete_add(int(fields[i_del]))
                        delete_rate_add(float(fields[i_dr]))
                if max_add is not None:
                    max_add(float(fields[i_max]) / 1000)
                line_add(line)
            except LogError:
                raise
            except (ValueError, OverflowError):
                trim_series(series)
                self._bad_report(line, text, fields)
                continue
            prev_rows, prev_seconds = rows, seconds

    def _start_extras(self) -> tuple[Callable, Callable, Callable | None, Callable | None]:
        """Arrays for deletes and queries, zero for the reports before the first one with a
        nonzero query or delete count; their append methods (None for deletes in the eras
        without them)."""
        self._open_extras(zeros=len(self.series.rows) - 1)
        series = self.series
        if series.deleted is None:
            return series.queries.append, series.interval_query_rate.append, None, None
        return (
            series.queries.append,
            series.interval_query_rate.append,
            series.deleted.append,
            series.interval_delete_rate.append,
        )

    def _open_extras(self, *, zeros: int) -> None:
        series = self.series
        series.queries = array("q", bytes(8 * zeros))
        series.interval_query_rate = array("d", bytes(8 * zeros))
        if "t_del" in self.column:
            series.deleted = array("q", bytes(8 * zeros))
            series.interval_delete_rate = array("d", bytes(8 * zeros))

    def _drop_zero_extras(self) -> None:
        series = self.series
        for count, rate in (
            ("deleted", "interval_delete_rate"),
            ("queries", "interval_query_rate"),
        ):
            values = getattr(series, count)
            if values is not None and not np.frombuffer(values, dtype=np.int64).any():
                setattr(series, count, None)
                setattr(series, rate, None)

    def _report_every_seconds(self) -> None:
        """The reporting period the i_sec column shows (the run's --secs_per_report)."""
        seconds = np.frombuffer(self.series.seconds, dtype=np.float64)
        if not len(seconds):
            return
        # The first report's time is its step from 0; the last interval is usually cut short
        # by the end of the run.
        period = median_step(seconds[:-1] if len(seconds) > 1 else seconds, from_zero=True)
        if period > 0 and math.isfinite(period):
            self.state("report_every_seconds", max(1, round(period)), int(self.series.line[0]))

    # -- 2009 to 2019: space separated, one line every rows_per_report rows -----------------

    def _parse_space(self, blocks: Iterable[list[str]]) -> None:
        column = self.column
        seconds_name = "#total_seconds" if "#total_seconds" in column else "#seconds"
        # In 2009-03b, whether #seconds is the interval is decided on the second report.
        undecided = self.format == "python-iibench-2009-03b"
        waiting: list[tuple[int, list[str]]] = []
        after_header = blocks_after(blocks, self.detection.header_line)
        for first, block in columnar.pieces(after_header, delimiter=" "):
            if not undecided and self._space_block_fast(block, seconds_name):
                continue
            for line, text in enumerate(block, first):
                fields = text.split()
                if len(fields) != self.ncols or not looks_like_report(fields[0]):
                    fields = self._other(line, text)
                    if fields is None:
                        continue
                if undecided:
                    waiting.append((line, fields))
                    if len(waiting) < 2:
                        continue
                    self._decide_seconds(waiting)
                    undecided = False
                    for waiting_line, waiting_fields in waiting:
                        self._add_space(waiting_line, waiting_fields, seconds_name)
                    continue
                self._add_space(line, fields, seconds_name)
        if undecided:  # a single report: the interval and the total are the same number
            for waiting_line, waiting_fields in waiting:
                self._add_space(waiting_line, waiting_fields, seconds_name)

    def _space_block_fast(self, block: list[str], seconds_name: str) -> bool:
        """A block of plain reports, one space between numbers, read as columns; False when
        the block must be read line by line (and always when #seconds is an interval, whose
        running total is the per-line path's to add up)."""
        if self.seconds_is_interval:
            return False
        picks = {field: self.column[name] for field, name in SPACE_COLUMNS.items()}
        picks["seconds"] = self.column[seconds_name]
        read = columnar.read_reports(
            block,
            ncols=self.ncols,
            kinds={position: KINDS[field] for field, position in picks.items()},
            unterminated_line=self.reader.unterminated_line,
            delimiter=" ",
        )
        if read is None:
            return False
        values = {field: read[position] for field, position in picks.items()}
        pending, series = columnar.Pending(self.series), self.series
        if not pending.in_order(values["rows"], values["seconds"], grows=True):
            return False
        if series.queries is None:
            series.queries, series.interval_query_rate = array("q"), array("d")
        pending.add(block, values)
        return True

    def _add_space(self, line: int, fields: list[str], seconds_name: str) -> None:
        try:
            values = self._values(line, fields, seconds_name)
        except LogError:
            if self.is_cut_off(line):
                return
            raise
        rows, seconds, interval, cumulative, queries, query_rate = values
        if self.seconds_is_interval:
            if seconds < 0:
                raise self.fail(f"#seconds is {num(seconds)}: an interval cannot be negative", line)
            seconds += self.series.seconds[-1] if len(self.series) else 0.0
        error = self.order_error(line, rows, seconds, grows=True)
        if error:
            raise error
        series = self.series
        if series.queries is None:
            series.queries, series.interval_query_rate = array("q"), array("d")
        series.rows.append(rows)
        series.seconds.append(seconds)
        series.interval_rate.append(interval)
        series.cumulative_rate.append(cumulative)
        series.queries.append(queries)
        series.interval_query_rate.append(query_rate)
        series.line.append(line)

    seconds_is_interval = False

    def _values(self, line: int, fields: list[str], seconds_name: str) -> tuple:
        column = self.column

        def value(name: str) -> str:
            return fields[column[name]]

        return (
            to_int(value("#rows"), "#rows", line),
            to_float(value(seconds_name), seconds_name, line),
            to_float(value("last_ips"), "last_ips", line),
            to_float(value("cum_ips"), "cum_ips", line),
            to_int(value("#queries"), "#queries", line),
            to_float(value("last_qps"), "last_qps", line),
        )

    def _decide_seconds(self, first_two: list[tuple[int, list[str]]]) -> None:
        """Whether #seconds is the interval: the reading that makes cum_ips = rows / total."""
        (_, a), (line, b) = first_two
        try:
            rows_a, sec_a, _, _, _, _ = self._values(first_two[0][0], a, "#seconds")
            rows_b, sec_b, last_b, cum_b, _, _ = self._values(line, b, "#seconds")
        except LogError:
            return  # the bad number is reported when the line is added

        def misfit(total: float, interval: float) -> float:
            if total <= 0 or interval <= 0:
                return math.inf
            cum = abs(rows_b / total - cum_b) / max(cum_b, 1e-9)
            last = abs((rows_b - rows_a) / interval - last_b) / max(last_b, 1e-9)
            return cum + last

        as_total = misfit(sec_b, sec_b - sec_a)
        as_interval = misfit(sec_a + sec_b, sec_b)
        self.seconds_is_interval = as_interval < as_total
        reading = (
            "the interval since the previous report"
            if self.seconds_is_interval
            else ("the total since the start")
        )
        self.markers.append(
            Marker(
                "assumption",
                line,
                f"#seconds read as {reading}: that reading makes cum_ips and last_ips agree "
                "with the rows",
            )
        )

    # -- lines that are not reports ---------------------------------------------------------

    def _other(self, line: int, text: str) -> list[str] | None:
        """The fields of a report the fast split missed, or None for any other line."""
        stripped = text.strip()
        if not stripped:
            return None
        if looks_like_report(stripped):
            fields = stripped.split()
            if len(fields) == self.ncols:
                return fields
            if self.is_cut_off(line):
                return None
            raise self.fail(
                f"a report line with {len(fields)} columns where the header "
                f"(line {num(self.detection.header_line)}) has {self.ncols}: "
                "was the log cut or edited?",
                line,
            )
        self._trailer(line, stripped)
        return None

    def _trailer(self, line: int, stripped: str) -> None:
        if stripped.startswith("Totals:"):
            self._totals(line, stripped)
        elif stripped == "Done":
            self.mark("done", line, stripped)
        elif stripped.startswith(CREATED_AFTER):
            self.mark("indexes_created_after_load", line, stripped)
            self.state("indexes_after_load", True, line)
        elif stripped.split()[0] in PYTHON_HEADER_STARTS:
            raise self.fail(
                "a second header: this file holds more than one run; upload one run per log",
                line,
            )
        elif stripped.lower().startswith("create table"):
            self._ddl_echo(line, stripped.lower())
        # Anything else is noise iibench prints: response-time histograms ("Insert rt:"),
        # "Query thread: ...", "getmin ...", "Done", warnings, exceptions it ignored.

    def _totals(self, line: int, stripped: str) -> None:
        match = TOTALS.match(stripped)
        if not match:
            if self.is_cut_off(line):
                return
            raise LogError(
                f"a Totals line this parser cannot read: {quote(stripped)}; "
                "upload the log as iibench printed it",
                line=line,
            )
        seconds = to_float(match[1], "Totals seconds", line)
        rate = to_float(match[2], "Totals rows/sec", line)
        rows = to_int(match[3], "Totals rows", line)
        self.totals = Totals(rows, seconds, rate, "completed", line)

    def _ddl_echo(self, line: int, lowered: str) -> None:
        """2009-era iibench echoes its CREATE TABLE: the engine and the secondary keys."""
        engine = DDL_ENGINE.search(lowered)
        if engine:
            self.state("engine", engine[1], line)
        self.state("secondary_indexes", len(DDL_KEY.findall(lowered)), line)

    # -- errors -----------------------------------------------------------------------------

    def _check_order(self, line: int, rows: int, seconds: float) -> None:
        error = self.order_error(line, rows, seconds, grows=False)
        if error:
            raise error

    def _bad_report(self, line: int, text: str, fields: list[str]) -> None:
        """Say which number of a report is wrong; ignore it if it is a cut-off last line.

        A line of text that merely has as many TABs as a report (a second header) is read
        as the other lines are.
        """
        stripped = text.strip()
        if not stripped:
            return
        if not looks_like_report(stripped):
            self._trailer(line, stripped)
            return
        if self.is_cut_off(line):
            return
        column = self.column
        try:
            for name in ("t_ins", "t_del", "t_query"):
                if name in column:
                    to_int(fields[column[name]], name, line)
            for name in ("t_sec", "i_ips", "t_ips", "i_dps", "i_qps"):
                if name in column:
                    to_float(fields[column[name]], name, line)
        except LogError as error:
            raise self.fail(error.message, line) from None
        raise self.fail("a report line this parser cannot read", line)
