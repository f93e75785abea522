"""Java iibench (tmcallaghan/iibench-mysql, iibench-mongodb): its console and its TSV file.

Every console line starts with `Thread.currentThread()` ("Thread[main,5,main]", Java 19+
"Thread[#1,main,5,main]"), some builds add a timestamp ("2023-01-04 20:15:32 UTC | ").
Numbers are printed with `%,d` and `%,.2f` in the JVM's default locale, so 99,950.05 (en),
99.950,05 (de), 99 950,05 (fr) and, in the TSV, 26288,39 all occur.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from . import columnar
from .common import INT64_MAX, LogParse, blocks_after, numbered
from .errors import LogError, num, quote
from .model import IndexInfo, Totals
from .reader import TextBlock

PREFIX = re.compile(
    r"^\s*(?:Thread\[[^\]]*\])?"
    r"(?:\s*\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:\s*(?:[A-Z]{2,5}|[+-]\d\d:?\d\d|Z))?"
    r"\s*\|\s?)?"
    r"(?:Thread\[[^\]]*\])?"
)
# What may separate groups of digits: comma, dot, apostrophe, (narrow) no-break space, space.
GROUPING = str.maketrans("", "", ",.'\u00a0\u202f ")

# A number as %,d prints it; in fr_FR the groups are split by U+202F, which regex calls space.
NUMBER = r"(\d[\d.,'\u00a0\u202f ]*)"
PARAMETER_LINES = (
    (re.compile(rf"^{NUMBER} writer thread\(s\)$"), "writers", int),
    (re.compile(rf"^{NUMBER} (?:rows per table|documents per collection)$"), "target_rows", int),
    (re.compile(rf"^{NUMBER} secondary indexes$"), "secondary_indexes", int),
    (re.compile(rf"^(?:Rows|Documents) Per Insert = {NUMBER}$"), "rows_per_insert", int),
    (re.compile(rf"^Maximum of {NUMBER} insert\(s\) per second$"), "max_rate", int),
    (re.compile(rf"^Feedback every {NUMBER} seconds\(s\)$"), "report_every_seconds", int),
    (re.compile(rf"^Feedback every {NUMBER} inserts\(s\)$"), "report_every_rows", int),
    (re.compile(rf"^{NUMBER} queryAndMeasureElapsed thread\(s\)$"), "query_threads", int),
    (re.compile(r"^MySQL Storage Engine\s*=\s*(\S+)$"), "engine", str),
    (re.compile(r"^index technology = (\S+)$"), "backend", str),
)
# The TSV file's columns: series field -> column name, and what each holds.
TSV_COLUMNS = {
    "rows": "tot_inserts",
    "seconds": "elap_secs",
    "cumulative_rate": "cum_ips",
    "interval_rate": "int_ips",
}
TSV_KINDS = {
    "rows": int,
    "seconds": int,
    "cumulative_rate": columnar.TwoDecimals,
    "interval_rate": columnar.TwoDecimals,
}


ZERO_MEANS_OFF = ("report_every_seconds", "report_every_rows", "max_rate")

# jiibench's own words as it creates each secondary index, before its writers start.
SECONDARY_INDEX_LINE = re.compile(r"^\*\*\* creating secondary index (\S+) \(([^)]*)\)$")
LOAD_STARTED_LINE = re.compile(r"^Writer thread \d+ : started to load table ")

# Other Java tools print the same `logMe` console and the same report lines: sysbench-mongodb's
# loader (jmongosysbenchload) among them. What its parameters block prints and iiBench's does
# not; and iiBench's block always states its secondary indexes ("3 secondary indexes"), which
# a loader of sysbench's table (one index on k) does not.
FOREIGN_PARAMETER_LINES = (
    (re.compile(rf"^{NUMBER} collections$"), "sysbench-mongodb's loader (jmongosysbenchload)"),
    (
        re.compile(r"^Writer thread \d+ : (?:creating|started to load) collection sbtest\d+"),
        "sysbench-mongodb's loader (jmongosysbenchload)",
    ),
)
# sysbench-mongodb's TSV file has these four columns only; iiBench's adds its query columns.
FOREIGN_TSV_HEADER = ("tot_inserts", "elap_secs", "cum_ips", "int_ips")


def not_iibench_java(looks_like: str, evidence: str, line: int) -> LogError:
    return LogError(
        f"not an iiBench log: this looks like {looks_like} ({evidence}), which prints the same "
        "console lines as the Java iibench but loads another table; upload the output of "
        "iibench itself",
        line=line,
    )


def grouped_int(text: str) -> int:
    """An integer printed with %,d in any locale: 1,000,000 / 1.000.000 / 1 000 000."""
    digits = text.strip().translate(GROUPING)
    if not digits.isdigit():
        raise ValueError(text)
    return int(digits)


def grouped_float(text: str) -> float:
    """A number printed with %,.2f in any locale.

    Java always prints two decimals, so the separator before the last two digits is the
    decimal one and every other separator groups thousands: 99,950.05 and 99.950,05 are the
    same number, and 26288,39 is 26288.39.
    """
    text = text.strip()
    if len(text) > 3 and text[-3] in ",." and text[-2:].isdigit():
        whole, decimals = text[:-3], text[-2:]
    else:
        whole, decimals = text, "0"
    digits = whole.translate(GROUPING)
    if digits.startswith("-"):
        raise ValueError(text)  # negative: reported as such by the caller
    if not digits.isdigit():
        # NaN, Infinity, "∞": float() reads or refuses them, the series check reports them.
        return float(text.replace("∞", "inf"))
    return float(f"{digits}.{decimals}")


def read_int(parse: LogParse, text: str, what: str, line: int) -> int:
    try:
        value = grouped_int(text)
    except ValueError:
        raise parse.fail(f"{what} {quote(text.strip())} is not a whole number", line) from None
    if value > INT64_MAX:
        raise parse.fail(f"{what} {num(value)} is larger than a 64-bit integer", line)
    return value


def read_float(parse: LogParse, text: str, what: str, line: int) -> float:
    try:
        return grouped_float(text)
    except ValueError:
        raise parse.fail(f"{what} {quote(text.strip())} is not a number", line) from None


def body_of(text: str) -> str:
    """The message logMe printed, without its thread and timestamp prefix."""
    return text[PREFIX.match(text).end() :].strip()


class JavaConsoleParse(LogParse):
    def parse(self, blocks: Iterable[list[str]]) -> None:
        self.column_words.update(
            {
                "rows": "inserts",
                "seconds": "seconds",
                "interval_rate": "int ips",
                "cumulative_rate": "cum ips",
            }
        )
        self.done_line: int | None = None
        self.repeat_line: int | None = None
        self.exceptions = 0
        # Java prints `elapsed / 1000`: whole seconds rounded down.
        self.clock, self.time_precision = "truncated", 1.0
        self.parameters_line: int | None = None
        self.rules_seen = 0
        for line, text in numbered(blocks):
            if line < self.detection.header_line:
                continue
            body = body_of(text)
            if not body:
                continue
            if " inserts : " in body:
                self._report(line, body)
            elif body == "Done!":
                self.done_line = line
            else:
                self._other(line, body)
        self._finish()

    def _report(self, line: int, body: str) -> None:
        head, _, rest = body.partition(" inserts : ")
        values: dict[str, str] = {}
        for part in rest.split(" : "):
            name, sep, value = part.partition("=")
            if sep:
                values[name.strip()] = value.strip()
            elif part.strip().endswith("seconds"):
                values["seconds"] = part.strip()[: -len("seconds")]
        missing = [name for name in ("seconds", "cum ips", "int ips") if name not in values]
        if missing:
            if self.is_cut_off(line):
                return
            raise self.fail(
                f"a report line without {', '.join(missing)}: was the log cut or edited?", line
            )
        try:
            rows = self._int(head, "inserts", line)
            seconds = float(self._int(values["seconds"], "seconds", line))
            cumulative = self._float(values["cum ips"], "cum ips", line)
            interval = self._float(values["int ips"], "int ips", line)
            query_rate = self._query_rate(values, line)
            exceptions = (
                self._int(values["exceptions"], "exceptions", line)
                if ("exceptions" in values)
                else None
            )
        except LogError:
            if self.is_cut_off(line):
                return
            raise
        self._add(line, rows, seconds, interval, cumulative, query_rate)
        if exceptions and not self.exceptions:
            self.mark("insert_exceptions", line, f"{num(exceptions)} insert exceptions so far")
        self.exceptions = max(self.exceptions, exceptions or 0)

    def _query_rate(self, values: dict[str, str], line: int) -> float | None:
        if "int avg qps" in values:
            return self._float(values["int avg qps"], "int avg qps", line)
        if "int avg qpm" in values:
            return self._float(values["int avg qpm"], "int avg qpm", line) / 60.0
        return None

    def _add(
        self,
        line: int,
        rows: int,
        seconds: float,
        interval: float,
        cumulative: float,
        query_rate: float | None,
    ) -> None:
        series = self.series
        if self.repeat_line is not None:
            # Only the closing report, printed after the last periodic one, may repeat it.
            raise self.fail(
                f"this report repeats line {num(int(series.line[-1]))}: remove the repeated line",
                self.repeat_line,
            )
        if len(series) and rows == series.rows[-1] and seconds == series.seconds[-1]:
            self.repeat_line = line
            return
        error = self.order_error(line, rows, seconds, grows=False)
        if error:
            raise error
        series.rows.append(rows)
        series.seconds.append(seconds)
        series.interval_rate.append(interval)
        series.cumulative_rate.append(cumulative)
        if query_rate is not None:
            if series.interval_query_rate is None:
                series.interval_query_rate = type(series.seconds)("d", [0.0] * (len(series) - 1))
            series.interval_query_rate.append(query_rate)
        series.line.append(line)

    def _int(self, text: str, what: str, line: int) -> int:
        return read_int(self, text, what, line)

    def _float(self, text: str, what: str, line: int) -> float:
        return read_float(self, text, what, line)

    def _other(self, line: int, body: str) -> None:
        if body == "Application Parameters" and self.parameters_line is None:
            self.parameters_line, self.rules_seen = line, 0
        elif self.parameters_line is not None and body and set(body) == {"-"}:
            self.rules_seen += 1
            # The block's closing rule: every iiBench run has stated its secondary indexes.
            if self.rules_seen == 2 and "secondary_indexes" not in self.parameters:
                raise not_iibench_java(
                    "the console of a Java loader that is not iiBench",
                    f"its 'Application Parameters' block (line {num(self.parameters_line)} to "
                    f"line {num(line)}) states no secondary indexes, which iiBench always "
                    "states",
                    line,
                )
        for pattern, looks_like in FOREIGN_PARAMETER_LINES:
            if pattern.match(body):
                raise not_iibench_java(looks_like, f"it prints {quote(body)}", line)
        for pattern, key, kind in PARAMETER_LINES:
            match = pattern.match(body)
            if match:
                value = grouped_int(match[1]) if kind is int else match[1]
                if key == "backend":
                    value = {"mongo": "mongodb"}.get(value.lower(), value.lower())
                if not (key in ZERO_MEANS_OFF and value == 0):
                    self.state(key, value, line)
                return
        if body.startswith("MySQL Server"):
            self.state("backend", "mysql", line)
        elif body == "NO queries, insert only benchmark":
            self.state("query_threads", 0, line)
        elif body.startswith(("SQLException:", "*** ERROR")):
            self.mark("error", line, body)
        elif index := SECONDARY_INDEX_LINE.match(body):
            self._index(index, line)
        elif LOAD_STARTED_LINE.match(body) and not getattr(self, "load_started_line", 0):
            self.load_started_line = line
            self.mark("load_started", line, body)

    def _index(self, index: re.Match, line: int) -> None:
        # jiibench creates its secondary indexes after the table and before its writers start
        # ("started to load table"): a line after the first report or that start is not one.
        late = bool(len(self.series)) or bool(getattr(self, "load_started_line", 0))
        columns = tuple(column.strip() for column in index[2].split(","))
        created = "after_load" if late else "before_load"
        self.indexes.append(IndexInfo(index[1], columns, False, created, line))
        if late:
            self.mark("indexes_created_after_load", line, f"index {index[1]} was created late")

    def _finish(self) -> None:
        if self.done_line is not None and len(self.series):
            series = self.series
            self.totals = Totals(
                int(series.rows[-1]),
                float(series.seconds[-1]),
                float(series.cumulative_rate[-1]),
                "completed",
                self.done_line,
            )
        if self.series.interval_query_rate is not None and not any(self.series.interval_query_rate):
            self.series.interval_query_rate = None
        self.check_series()


class JavaTsvParse(LogParse):
    """The file iibench writes next to its console: one header, TAB separated reports.

    The last line, written after the run, has no `exceptions` column: it is accepted there.
    """

    REQUIRED = ("tot_inserts", "elap_secs", "cum_ips", "int_ips")

    def parse(self, blocks: Iterable[list[str]]) -> None:
        names = self.detection.header.split()
        # Java prints `elapsed / 1000`: whole seconds rounded down.
        self.clock, self.time_precision = "truncated", 1.0
        if tuple(names) == FOREIGN_TSV_HEADER:
            raise not_iibench_java(
                "the TSV file of sysbench-mongodb's loader (jmongosysbenchload)",
                "a header of only tot_inserts, elap_secs, cum_ips and int_ips, without the "
                "query and exceptions columns iiBench writes",
                self.detection.header_line,
            )
        missing = [name for name in self.REQUIRED if name not in names]
        if missing:
            raise LogError(
                f"the TSV header lacks {', '.join(missing)}", line=self.detection.header_line
            )
        self.column_words.update(
            {
                "rows": "tot_inserts",
                "seconds": "elap_secs",
                "interval_rate": "int_ips",
                "cumulative_rate": "cum_ips",
            }
        )
        column = {name: i for i, name in enumerate(names)}
        self.names, self.column, short_line = names, column, None
        for first, block in columnar.pieces(blocks_after(blocks, self.detection.header_line)):
            if short_line is None and self._block_fast(block):
                continue
            if short_line is None and len(block) > 1 and hasattr(block, "data"):
                # Most often the closing line, which lacks the exceptions column: the reports
                # before it still go as columns.
                cut = block.data.rfind(b"\n")
                head = TextBlock(block.data[:cut], first, len(block) - 1)
                if self._block_fast(head):
                    first, block = first + len(head), block.lines_from(len(head))
            short_line = self._block(first, block, short_line)
        self.check_series()

    def _block_fast(self, block: list[str]) -> bool:
        """A block of plain reports read as columns (columnar.py); False when the block must
        be read line by line. The rates must be printed as Java prints them, with two decimals
        (`grouped_float` reads 1234.5 as 12345 and .5 as 5: such blocks go per line)."""
        picks = {field: self.column[name] for field, name in TSV_COLUMNS.items()}
        read = columnar.read_reports(
            block,
            ncols=len(self.names),
            kinds={position: TSV_KINDS[field] for field, position in picks.items()},
            unterminated_line=self.reader.unterminated_line,
        )
        if read is None:
            return False
        values = {field: read[position] for field, position in picks.items()}
        values["seconds"] = values["seconds"].astype(float)  # whole seconds, kept as floats
        pending = columnar.Pending(self.series)
        if not pending.in_order(values["rows"], values["seconds"], grows=False):
            return False
        pending.add(block, values)
        return True

    def _block(self, first: int, block: list[str], short_line: int | None) -> int | None:
        """The per-line path; returns the line that lacked the exceptions column, if any."""
        names, column = self.names, self.column
        for line, text in enumerate(block, first):
            if not text.strip():
                continue
            fields = text.strip("\n").split("\t")
            if short_line is not None:
                raise self.fail(
                    f"{len(names) - 1} columns where the header has {len(names)}; only the last "
                    "line may lack the exceptions column",
                    short_line,
                )
            if len(fields) != len(names):
                if len(fields) == len(names) - 1 and names[-1] == "exceptions":
                    short_line = line
                elif self.is_cut_off(line):
                    continue
                else:
                    raise self.fail(
                        f"a report line with {len(fields)} columns where the header "
                        f"(line {num(self.detection.header_line)}) has {len(names)}: "
                        "was the file cut or edited?",
                        line,
                    )
            try:
                rows = read_int(self, fields[column["tot_inserts"]], "tot_inserts", line)
                seconds = float(read_int(self, fields[column["elap_secs"]], "elap_secs", line))
                cumulative = read_float(self, fields[column["cum_ips"]], "cum_ips", line)
                interval = read_float(self, fields[column["int_ips"]], "int_ips", line)
            except LogError:
                if self.is_cut_off(line):
                    continue
                raise
            error = self.order_error(line, rows, seconds, grows=False)
            if error:
                if short_line == line and rows == self.series.rows[-1]:
                    continue  # the closing line repeats the last report
                raise error
            series = self.series
            series.rows.append(rows)
            series.seconds.append(seconds)
            series.interval_rate.append(interval)
            series.cumulative_rate.append(cumulative)
            series.line.append(line)
        return short_line
