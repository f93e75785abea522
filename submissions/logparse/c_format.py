"""The bundled C benchmark's own format (runner/iibench/FORMAT.md, formats 1 to 3).

`# ` lines are the header and trailer, then a TAB separated column header and report lines.
Unknown `# ` lines and unknown key=value pairs are tolerated, as the format asks. Format 2 adds
what each interval cost (COST_COLUMNS, "-" where unmeasured), the machine and the server's
settings; format 3 the machine's CPU (`machine_cpu_s`). An older log simply has none of them.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Iterator

import numpy as np

from . import columnar
from .common import LogParse, numbered_blocks, to_float, to_int, trim_series
from .errors import LogError, num, quote
from .model import (
    COST_FIELDS,
    IndexInfo,
    KeyTypeRun,
    LoadSummary,
    MeterReading,
    ParsedLog,
    ServerSettingLine,
    Stated,
    Totals,
)

FORMAT_VERSIONS = ("1", "2", "3")
# Format 2's cost columns carry the names of the Series fields they fill.
COST_COLUMNS = COST_FIELDS
SETTING_STATES = ("default", "changed", "unknown")
COLUMNS = (
    "rows",
    "seconds",
    "interval_ips",
    "cumulative_ips",
    "deleted",
    "interval_dps",
    "queries",
    "interval_qps",
)
INTEGER_COLUMNS = ("rows", "deleted", "queries")
COLUMN_KINDS = {name: int if name in INTEGER_COLUMNS else float for name in COLUMNS}
# Series field -> column, for the columns every report adds to the series; the others are
# EXTRA_COLUMNS, kept apart (`self.extras`, in this order) until the end shows they are used.
SERIES_COLUMNS = {
    "rows": "rows",
    "seconds": "seconds",
    "interval_rate": "interval_ips",
    "cumulative_rate": "cumulative_ips",
}
EXTRA_COLUMNS = ("deleted", "interval_dps", "queries", "interval_qps")
# `# param` name -> (parameter key, type)
PARAMS = {
    "mode": ("mode", str),
    "rows": ("target_rows", int),
    "rows_per_commit": ("rows_per_commit", int),
    "rows_per_insert": ("rows_per_insert", int),
    "report_every": ("report_every_rows", int),
    "max_rate": ("max_rate", int),
    "seed": ("seed", int),
    "engine": ("engine", str),
    "pk": ("pk", str),
    "writers": ("writers", int),
    "readers": ("readers", int),
    "query_threads": ("query_threads", int),
    "delete_after": ("delete_after", int),
    "keys": ("keys", int),
    "row_length": ("row_length", int),
}


# The benchmark's parameters are unsigned 64-bit integers (seeds use the whole range).
UINT64_MAX = (1 << 64) - 1


def _whole_param(name: str, value: str, line: int) -> int:
    try:
        number = int(value)
    except ValueError:
        raise LogError(f"param {name}={quote(value)} is not a whole number", line=line) from None
    if not 0 <= number <= UINT64_MAX:
        raise LogError(
            f"param {name}={num(number)} is out of the benchmark's range (0 to "
            f"{num(UINT64_MAX)}): was the line edited?",
            line=line,
        )
    return number


def key_values(text: str) -> dict[str, str]:
    return dict(word.partition("=")[::2] for word in text.split() if "=" in word)


def read_setting(rest: str, line: int) -> tuple[str, ServerSettingLine]:
    """`# setting NAME STATE VALUE` after the word `setting`: the value runs to the line's end
    and may be empty."""
    name, _, rest = rest.lstrip().partition(" ")
    state, _, value = rest.partition(" ")
    if not name or state not in SETTING_STATES:
        raise LogError(
            f"setting {quote(name)}: the state {quote(state)} is not one of "
            f"{', '.join(SETTING_STATES)}",
            line=line,
        )
    return name, ServerSettingLine(value.strip(), state, line)


def header_lines(lines: Iterable[str]) -> Iterator[tuple[int, str, str]]:
    """(line, word, the rest) of each `# word ...` line of a C benchmark log's header, up to its
    column header only (the header comes before the reports): for pages that need what the
    header states, not the series. Nothing for a log that is not the C benchmark's."""
    for line, text in enumerate(lines, 1):
        if not text.startswith("#"):
            if line == 1 or text.strip():
                return
            continue
        if line == 1 and not text.startswith("# iibench-c"):
            return
        word, _, rest = text[1:].strip().partition(" ")
        yield line, word, rest


SETTING_LINE = "# setting "


def without_settings(text: str) -> str:
    """The text with each `# setting` line left empty: the same lines and line numbers, with
    the same reports, read in a fraction of the time by a parse that wants only the reports
    (the live curve; a MariaDB server's header lists ~700 settings). Any other text as it is."""
    if SETTING_LINE not in text:
        return text
    return "\n".join("" if line.startswith(SETTING_LINE) else line for line in text.split("\n"))


def settings_dropped(text: str) -> str:
    """The text without its `# setting` lines: the same reports, read in a fraction of the
    time, each on an earlier line (by the number of settings before it)."""
    if SETTING_LINE not in text:
        return text
    return "\n".join(line for line in text.split("\n") if not line.startswith(SETTING_LINE))


def header_settings(lines: Iterable[str]) -> dict[str, ServerSettingLine]:
    """The server settings a C benchmark log's header lists."""
    found: dict[str, ServerSettingLine] = {}
    for line, word, rest in header_lines(lines):
        if word == "setting":
            try:
                name, setting = read_setting(rest, line)
            except LogError:
                continue
            found.setdefault(name, setting)
    return found


def header_server(lines: Iterable[str]) -> dict[str, str]:
    """The server a C benchmark log's header names (`# server 10.11.19-MariaDB`), as
    {"server_version": ...}; empty when it names none."""
    for _, word, rest in header_lines(lines):
        if word == "server" and rest.strip():
            return {"server_version": rest.strip()}
    return {}


class CFormatParse(LogParse):
    def parse(self, blocks: Iterable[list[str]], first_line: int = 1) -> None:
        """`first_line`: the number of the first line of `blocks` in the file, when this run is
        one of several printed one after another (`parse_log_runs`)."""
        self.time_precision = 0.001  # FORMAT.md: seconds with three decimals
        self.column_words.update(
            {
                "interval_rate": "interval_ips",
                "cumulative_rate": "cumulative_ips",
                "interval_delete_rate": "interval_dps",
                "interval_query_rate": "interval_qps",
            }
        )
        self.columns: dict[str, int] | None = None
        self.summary_line: int | None = None
        self.extras = (array("q"), array("d"), array("q"), array("d"))
        self.costs: dict[str, array] = {}
        # Made once, not per `# ` line: a header may hold thousands of them.
        self._handlers = {
            "iibench-c": self._version,
            "param": self._param,
            "backend": lambda line, rest: self.state("backend", rest.strip(), line),
            "server": lambda line, rest: self.state("server_version", rest.strip(), line),
            "index": self._index,
            "summary": self._summary,
            "machine": self._machine,
            "setting": self._setting,
        }
        # Format 2's cost cells may be "-": a report's byte, not a reason to cut the block.
        for first, block in columnar.pieces(numbered_blocks(blocks, first_line), dashes=True):
            self._block(first, block)
        self._finish()

    def _block(self, first: int, block: list[str]) -> None:
        if self._block_fast(block):
            return
        series = self.series
        prev_rows = series.rows[-1] if len(series) else -1
        prev_seconds = series.seconds[-1] if len(series) else -math.inf
        deleted, delete_rate, queries, query_rate = self.extras
        costs = [(self.columns[name], values) for name, values in self.costs.items()]
        nan = math.nan
        for line, text in enumerate(block, first):
            if self.columns is None or not text or not (text[0].isdigit() or text[0] == "-"):
                self._other(line, text)
                if self.costs and not costs:  # the column header was on this line
                    costs = [(self.columns[name], values) for name, values in self.costs.items()]
                continue
            fields = text.split("\t")
            if len(fields) != self.ncols:
                if self.is_cut_off(line):
                    continue
                raise self.fail(
                    f"a report line with {len(fields)} columns where the column header "
                    f"(line {num(self.columns_line)}) has {self.ncols}: was the log cut or edited?",
                    line,
                )
            if self.summary_line is not None:
                raise self.fail(
                    f"a report after the summary (line {num(self.summary_line)}): "
                    "upload one run per log",
                    line,
                )
            c = self.columns
            try:
                rows, seconds = int(fields[c["rows"]]), float(fields[c["seconds"]])
                if rows <= prev_rows or seconds < prev_seconds:
                    error = self.order_error(line, rows, seconds, grows=True)
                    if error:
                        raise error
                series.rows.append(rows)
                series.seconds.append(seconds)
                series.interval_rate.append(float(fields[c["interval_ips"]]))
                series.cumulative_rate.append(float(fields[c["cumulative_ips"]]))
                deleted.append(int(fields[c["deleted"]]))
                delete_rate.append(float(fields[c["interval_dps"]]))
                queries.append(int(fields[c["queries"]]))
                query_rate.append(float(fields[c["interval_qps"]]))
                for at, values in costs:
                    cost = fields[at]
                    values.append(nan if cost == "-" else float(cost))
                series.line.append(line)
            except LogError:
                raise
            except (ValueError, OverflowError):
                self._trim()
                if self.is_cut_off(line):
                    continue
                raise self._bad_report(line, fields) from None
            prev_rows, prev_seconds = rows, seconds

    def _block_fast(self, block: list[str]) -> bool:
        """A block of plain reports read as columns (columnar.py); False when the block must
        be read line by line (the column header, `# ` lines, anything odd)."""
        data = getattr(block, "data", b"")
        if self.columns is None or self.summary_line is not None or not data[:1].isdigit():
            return False
        # The per-line path reads a line not starting with a digit as a column header (an
        # error); Arrow refuses it too when the first column holds integers, else look.
        first_column = next((n for n, at in self.columns.items() if at == 0), None)
        if COLUMN_KINDS.get(first_column) is not int and (b"\n." in data or b"\n\t" in data):
            return False
        kinds = {self.columns[name]: COLUMN_KINDS[name] for name in COLUMNS}
        # Cost cells: "-" where the report could not measure, NaN as on the per-line path.
        unmeasured = frozenset(self.columns[name] for name in self.costs)
        kinds.update(dict.fromkeys(unmeasured, float))
        read = columnar.read_reports(
            block,
            ncols=self.ncols,
            kinds=kinds,
            unterminated_line=self.reader.unterminated_line,
            missing=unmeasured,
        )
        if read is None:
            return False
        values = {name: read[self.columns[name]] for name in (*COLUMNS, *self.costs)}
        pending = columnar.Pending(self.series)
        if not pending.in_order(values["rows"], values["seconds"], grows=True):
            return False
        for column, name in zip(self.extras, EXTRA_COLUMNS, strict=True):
            columnar.extend(column, values[name])
        for name, column in self.costs.items():
            columnar.extend(column, values[name])
        pending.add(block, {field: values[name] for field, name in SERIES_COLUMNS.items()})
        return True

    def _trim(self) -> None:
        trim_series(self.series)
        for values in (*self.extras, *self.costs.values()):
            del values[len(self.series.line) :]

    def _bad_report(self, line: int, fields: list[str]) -> LogError:
        for name in (*COLUMNS, *self.costs):
            text = fields[self.columns[name]]
            if name in self.costs and text == "-":
                continue
            try:
                if name in INTEGER_COLUMNS:
                    to_int(text, name, line)
                else:
                    to_float(text, name, line)
            except LogError as error:
                return self.fail(error.message, line)
        return self.fail("a report line this parser cannot read", line)

    # -- `# ` lines ---------------------------------------------------------------------------

    def _other(self, line: int, text: str) -> None:
        stripped = text.strip()
        if not stripped:
            return
        if not stripped.startswith("#"):
            self._column_header(line, stripped)
            return
        word, _, rest = stripped[1:].strip().partition(" ")
        handler = self._handlers.get(word)
        if handler:
            try:
                handler(line, rest)
            except LogError:
                if not self.is_cut_off(line):
                    raise

    def _version(self, line: int, rest: str) -> None:
        pairs = key_values(rest)
        if pairs.get("format") not in FORMAT_VERSIONS:
            raise LogError(
                f"iibench-c output format {pairs.get('format', '(none)')}; this registry reads "
                f"formats {', '.join(FORMAT_VERSIONS[:-1])} and {FORMAT_VERSIONS[-1]}: rerun with the iibench-c this "
                "registry ships",
                line=line,
            )
        if "version" in pairs:
            self.state("benchmark_version", pairs["version"], line)

    def _param(self, line: int, rest: str) -> None:
        name, _, value = rest.strip().partition("=")
        if name not in PARAMS:
            return
        key, kind = PARAMS[name]
        self.state(key, _whole_param(name, value, line) if kind is int else value, line)

    def _index(self, line: int, rest: str) -> None:
        name, _, described = rest.strip().partition(" ")
        pairs = key_values(described)
        created = pairs.get("created", "before_load")
        if created not in ("before_load", "after_load"):
            raise LogError(f"index {name}: created={quote(created)} is not known", line=line)
        columns = tuple(c for c in pairs.get("columns", "").split(",") if c)
        unique = pairs.get("unique") == "yes"
        primary = (
            name.upper() == "PRIMARY"
            or name.endswith("_pkey")
            or (name.startswith("sqlite_autoindex_"))
        )
        self.indexes.append(IndexInfo(name, columns, unique, created, line, primary))
        self.check_statements(line, len(rest))
        if created == "after_load":
            self.mark(
                "indexes_created_after_load", line, f"index {name} was created after the load"
            )

    def _machine(self, line: int, rest: str) -> None:
        key, _, value = rest.strip().partition(" ")
        value = value.strip()
        if key and value and value != "-" and key not in self.machine:
            self.machine[key] = Stated(value, line)
            self.check_statements(line, len(rest))

    def _setting(self, line: int, rest: str) -> None:
        name, setting = read_setting(rest, line)
        if name not in self.settings:
            self.settings[name] = setting
            self.check_statements(line, len(rest))

    def _column_header(self, line: int, stripped: str) -> None:
        if self.columns is not None:
            raise self.fail(f"expected a report line, found {quote(stripped)}", line)
        names = stripped.split()
        if set(COLUMNS) - set(names):
            raise LogError(
                f"expected '# ' header lines or the column header "
                f"'{' '.join(COLUMNS)}', found {quote(stripped)}",
                line=line,
            )
        self.columns = {
            name: names.index(name) for name in (*COLUMNS, *COST_COLUMNS) if name in names
        }
        self.costs = {name: array("d") for name in COST_COLUMNS if name in names}
        self.ncols = len(names)
        self.columns_line = line

    def _summary(self, line: int, rest: str) -> None:
        self.summary_line = line
        pairs_text, _, error = rest.partition("error=")
        pairs = key_values(pairs_text)
        status = pairs.get("status", "")
        if status not in ("completed", "stopped", "failed"):
            raise LogError(f"summary status={quote(status)} is not known", line=line)

        def number(name: str, kind: type) -> int | float | None:
            if name not in pairs:
                return None
            return (
                to_int(pairs[name], name, line)
                if kind is int
                else to_float(pairs[name], name, line)
            )

        if status == "stopped":
            self.mark("stopped", line, f"stopped by {pairs.get('reason', 'a signal')}")
        elif status == "failed":
            self.mark("failed", line, error.strip() or "failed")
        if pairs.get("mode") == "load" and status == "completed":
            self.load = LoadSummary(
                rows=number("rows", int),
                keys=number("keys", int),
                row_length=number("row_length", int),
                seconds=number("seconds", float),
                rows_per_s=number("rows_per_s", float),
                kv_pairs_per_s=number("kv_pairs_per_s", float),
                mb_per_s=number("mb_per_s", float),
                line=line,
            )
            if None in (self.load.rows, self.load.seconds, self.load.keys, self.load.rows_per_s):
                raise LogError(
                    "the load summary lacks rows, keys, seconds or rows_per_s", line=line
                )
            rate = number("rows_per_s", float)
        else:
            rate = number("average_ips", float)
        self.totals = Totals(number("rows", int), number("seconds", float), rate, status, line)

    # -- the end ----------------------------------------------------------------------------

    def _finish(self) -> None:
        series = self.series
        deleted, delete_rate, queries, query_rate = self.extras
        if np.frombuffer(deleted, dtype=np.int64).any():
            series.deleted, series.interval_delete_rate = deleted, delete_rate
        if np.frombuffer(queries, dtype=np.int64).any():
            series.queries, series.interval_query_rate = queries, query_rate
        for name, values in self.costs.items():
            # A column no report could measure is absent, not a row of NaNs.
            if not np.isnan(np.frombuffer(values, dtype=np.float64)).all():
                setattr(series, name, values)
        backend = self.parameters.get("backend")
        if backend is not None and backend.value != "mysql":
            # Older builds printed `# param engine=InnoDB` on every backend; a storage engine
            # is chosen only on MySQL/MariaDB, so elsewhere it states nothing.
            self.parameters.pop("engine", None)
        secondary = [index for index in self.indexes if not index.primary]
        if self.indexes:
            self.state("secondary_indexes", len(secondary), self.indexes[0].line)
            late = [index for index in self.indexes if index.created == "after_load"]
            self.state("indexes_after_load", bool(late), (late or self.indexes)[-1].line)
        mode = self.parameters.get("mode")
        ended_early = self.totals is not None and self.totals.status in ("failed", "stopped")
        is_load = mode is not None and mode.value == "load"
        if is_load and self.load is None and not ended_early:
            raise LogError("the load run has no '# summary' line: it did not finish")
        self.check_series(allow_empty=is_load or ended_early)


def key_type_run(parsed: ParsedLog) -> KeyTypeRun | None:
    """A run with `# param pk=...` read as one table of seed 004: its time and rows, its
    commits as the write events and its readers' range scans as the read events. None for a
    run that states no key kind or inserted nothing."""
    pk = parsed.parameters.get("pk")
    series, totals = parsed.series, parsed.totals
    if totals is not None and totals.rows and totals.seconds:
        rows, seconds = totals.rows, totals.seconds
    elif len(series):
        rows, seconds = int(series.rows[-1]), float(series.seconds[-1])
    else:
        return None
    if pk is None or seconds <= 0:
        return None
    per_commit = parsed.parameters.get("rows_per_commit")
    commits = -(-rows // int(per_commit.value)) if per_commit else rows
    readers = parsed.parameters.get("readers")
    queries = int(series.queries[-1]) if series.queries is not None and len(series) else 0
    reads = None
    if readers is not None and int(readers.value) > 0:
        reads = MeterReading(queries, queries / seconds)
    return KeyTypeRun(
        name=str(pk.value),
        minutes=seconds / 60,
        rows=rows,
        reads=reads,
        writes=MeterReading(commits, commits / seconds),
        line=pk.line,
    )


def header_machine(lines: Iterable[str]) -> dict[str, Stated]:
    """The machine a C benchmark log's header states (`# machine KEY VALUE`)."""
    found: dict[str, Stated] = {}
    for line, word, rest in header_lines(lines):
        if word == "machine":
            key, _, value = rest.strip().partition(" ")
            value = value.strip()
            if key and value and value != "-":
                found.setdefault(key, Stated(value, line))
    return found
