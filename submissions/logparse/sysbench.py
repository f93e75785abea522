"""sysbench iibench (Dmitree-Max/sysbench-iibench, Lua) as sysbench 1.x prints it.

In iibench.lua an insert thread's event is `execute_inserts()`: one bulk INSERT of
`rows_per_commit` rows (default 1,000); query threads' events are one SELECT each. sysbench
counts the INSERT as a write and the SELECTs as reads, so the rows inserted in an interval
are writes/s x seconds x rows_per_commit. The log never prints rows_per_commit: it comes
from the entrant's declaration or a command line echoed in the log, and the parse says so.
With `--with_max_table_rows` the DELETEs count as writes too, so such a run reads high.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterable

from .common import LogParse, numbered, to_float, to_int
from .errors import LogError, num
from .model import Totals

REPORT = re.compile(
    r"^\[\s*(?P<at>\d+(?:\.\d+)?)s\s*\]\s+thds:\s*\d+\s+tps:\s*\S+\s+qps:\s*\S+\s+"
    r"\(r/w/o:\s*(?P<reads>[^/\s]+)/(?P<writes>[^/\s]+)/[^)\s]+\)"
)
BANNER = re.compile(r"^(sysbench \d+(?:\.\d+)+)")
REPORT_EVERY = re.compile(r"^Report intermediate results every (\d+) second")
SEED = re.compile(r"^Initializing random number generator from seed \((\d+)\)")
STATISTIC = re.compile(r"^(write|total time):\s+(\S+?)s?$")
DEFAULT_ROWS_PER_COMMIT = 1000


class SysbenchParse(LogParse):
    def parse(self, blocks: Iterable[list[str]]) -> None:
        self.column_words.update({"interval_rate": "writes/s", "seconds": "the report time"})
        self.rows_per_event = self._rows_per_event()
        self.events = 0
        self.queries = 0
        self.query_counts, self.query_rates = array("q"), array("d")
        self.statistics_line: int | None = None
        self.writes: int | None = None
        self.failed_line: int | None = None
        for line, text in numbered(blocks):
            if line < self.detection.header_line:
                continue
            stripped = text.strip()
            if stripped.startswith("["):
                self._report(line, stripped)
            elif stripped:
                self._other(line, stripped)
        self._finish()

    def _rows_per_event(self) -> int:
        stated = self.parameters.get("rows_per_commit")
        if stated is not None:
            return int(stated.value)
        for key in ("rows_per_commit", "rows_per_insert"):
            if key in self.declared:
                self.pending_assumption = (
                    f"rows per INSERT taken from the entrant's declaration: "
                    f"{num(int(self.declared[key]))} (the sysbench log does not print it)"
                )
                return int(self.declared[key])
        self.pending_assumption = (
            f"rows per INSERT not declared: assumed iibench.lua's default of "
            f"{num(DEFAULT_ROWS_PER_COMMIT)} (the sysbench log does not print it)"
        )
        return DEFAULT_ROWS_PER_COMMIT

    pending_assumption: str | None = None

    def _report(self, line: int, stripped: str) -> None:
        match = REPORT.match(stripped)
        if not match:
            if "thds:" in stripped and not self.is_cut_off(line):
                raise self.fail("a report line this parser cannot read: was it edited?", line)
            return  # e.g. "[ 10s ] queue length: 0, concurrency: 0" with --rate
        try:
            at = to_float(match["at"], "the report time", line)
            writes = to_float(match["writes"], "writes/s", line)
            reads = to_float(match["reads"], "reads/s", line)
        except LogError:
            if self.is_cut_off(line):
                return
            raise
        if self.pending_assumption:
            self.mark("assumption", line, self.pending_assumption)
            self.pending_assumption = None
        series = self.series
        since = at - (series.seconds[-1] if len(series) else 0.0)
        # Rates are printed with two decimals: rounding gives back the whole number of events.
        self.events += max(0, round(writes * since))
        self.queries += max(0, round(reads * since))
        rows = self.events * self.rows_per_event
        error = self.order_error(line, rows, at, grows=False)
        if error:
            raise error
        series.rows.append(rows)
        series.seconds.append(at)
        series.interval_rate.append(writes * self.rows_per_event)
        series.cumulative_rate.append(rows / at if at > 0 else 0.0)
        self.query_counts.append(self.queries)
        self.query_rates.append(reads)
        series.line.append(line)

    def _other(self, line: int, stripped: str) -> None:
        banner = BANNER.match(stripped)
        if banner:
            self.state("benchmark_version", banner[1], line)
        elif match := REPORT_EVERY.match(stripped):
            self.state("report_every_seconds", int(match[1]), line)
        elif match := SEED.match(stripped):
            self.state("seed", int(match[1]), line)
        elif stripped == "SQL statistics:":
            self.statistics_line = line
        elif stripped.startswith("FATAL:"):
            self.mark("failed", line, stripped)
            self.failed_line = self.failed_line or line
        elif self.statistics_line and (match := STATISTIC.match(stripped)):
            if match[1] == "write":
                self.writes = to_int(match[2], "writes", line)
            else:
                self._totals(line, to_float(match[2], "total time", line))

    def _totals(self, line: int, seconds: float) -> None:
        rows = None if self.writes is None else self.writes * self.rows_per_event
        rate = rows / seconds if rows is not None and seconds > 0 else None
        status = "failed" if self.failed_line else "completed"
        self.totals = Totals(rows, seconds, rate, status, self.statistics_line or line)

    def _finish(self) -> None:
        if any(self.query_counts):
            self.series.queries = self.query_counts
            self.series.interval_query_rate = self.query_rates
        if self.totals is None and self.failed_line:
            self.totals = Totals(None, None, None, "failed", self.failed_line)
        if not len(self.series) and not self.failed_line:
            raise LogError(
                "the log has no report lines: run sysbench with --report-interval=10 "
                "so that it prints the insert rate every 10 s"
            )
        self.check_series(allow_empty=self.failed_line is not None)
