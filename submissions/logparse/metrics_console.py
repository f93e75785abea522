"""The metrics console of the primary-key-type benchmark (seed 004).

A Dropwizard-metrics ConsoleReporter dump per table: "Starting NAME...", "NAME took ===> 9.718
min", then counters (rows) and meters (read and write events with their rates). A plain
capture is read strictly. The seed itself is a markdown write-up with the captures in ```
fences: there, only fences that open with "Starting NAME..." are read, the prose and the
other fences (DDL, EXPLAIN) are skipped, and each run keeps the heading of its test.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from .common import LogParse, numbered, to_int
from .errors import LogError, quote
from .java_iibench import grouped_float
from .model import KeyTypeRun, MeterReading

START = re.compile(r"^Starting (\S+)\.\.\.$")
TOOK = re.compile(r"^(\S+) took =*> ?([\d.,]+) ?(ms|s|sec|secs|min|mins|h|hours?)$")
SECTION = re.compile(r"^-- \w[\w ]* -+$")
STAMP = re.compile(r"^\d.* ={5,}$")
VALUE = re.compile(r"^([\w%.\- ]+?) *= *(\S+)(?: +\S+)?$")
METRIC = re.compile(r"^(\S+)-(\w+)$")
HEADING = re.compile(r"^#+\s*(.*?)\s*$")
MINUTES_PER = {"ms": 1 / 60_000, "s": 1 / 60, "sec": 1 / 60, "secs": 1 / 60}
MINUTES_PER.update({"min": 1.0, "mins": 1.0, "h": 60.0, "hour": 60.0, "hours": 60.0})
METER_FIELDS = {
    "count": "count",
    "mean rate": "mean_rate",
    "1-minute rate": "rate_1m",
    "5-minute rate": "rate_5m",
    "15-minute rate": "rate_15m",
}


@dataclass
class _Run:
    name: str
    line: int
    group: str
    minutes: float | None = None
    rows: int | None = None
    meters: dict[str, dict[str, float]] = field(default_factory=dict)


class MetricsConsoleParse(LogParse):
    def parse(self, blocks: Iterable[list[str]]) -> None:
        self.run: _Run | None = None
        self.metric: tuple[str, str] | None = None  # (kind, name) the value lines belong to
        self.group = ""
        in_fence = reading_fence = False
        for line, text in numbered(blocks):
            stripped = text.strip()
            if not self.detection.markdown:
                if line >= self.detection.header_line and stripped:
                    self._line(line, stripped)
                continue
            if stripped.startswith("```"):
                if in_fence:
                    self._close_run()
                in_fence, reading_fence = not in_fence, False
                if in_fence:
                    self.fence_first = True
                continue
            if not in_fence:
                heading = HEADING.match(stripped)
                if heading and heading[1]:
                    self.group = heading[1]
                continue
            if stripped and self.fence_first:
                self.fence_first = False
                reading_fence = bool(START.match(stripped))
            if reading_fence and stripped:
                self._line(line, stripped)
        self._close_run()
        if not self.key_type_runs:
            raise LogError(
                "no complete run: expected 'Starting NAME...', 'NAME took ===> ...', "
                "a counter and meters"
            )
        self.check_series(allow_empty=True)

    fence_first = False

    def _line(self, line: int, stripped: str) -> None:
        if match := START.match(stripped):
            self._close_run()
            self.run = _Run(match[1], line, self.group)
            return
        if self.run is None:
            raise LogError(f"expected 'Starting NAME...', found {quote(stripped)}", line=line)
        if match := TOOK.match(stripped):
            self.run.minutes = self._number(match[2], line) * MINUTES_PER[match[3]]
        elif SECTION.match(stripped) or STAMP.match(stripped):
            self.metric = None
        elif match := METRIC.match(stripped):
            self.metric = (match[2], match[1])
        elif (match := VALUE.match(stripped)) and self.metric is not None:
            self._value(line, match[1], match[2])
        elif not self.is_cut_off(line):
            raise LogError(
                f"not part of a metrics console report: {quote(stripped)}; "
                "upload the console output as it was printed",
                line=line,
            )

    def _value(self, line: int, name: str, text: str) -> None:
        kind, _ = self.metric
        if kind == "counter" and name == "count":
            self.run.rows = to_int(text, "count", line)
        elif name in METER_FIELDS:
            meter = self.run.meters.setdefault(kind, {})
            meter[METER_FIELDS[name]] = (
                to_int(text, "count", line) if name == "count" else self._number(text, line)
            )

    def _number(self, text: str, line: int) -> float:
        try:
            return grouped_float(text) if text[-3:-2] in ",." else float(text)
        except ValueError:
            raise LogError(f"{quote(text)} is not a number", line=line) from None

    def _close_run(self) -> None:
        run, self.run, self.metric = self.run, None, None
        if run is None:
            return
        if run.minutes is None or run.rows is None:
            missing = "'took' line" if run.minutes is None else "counter"
            raise LogError(f"the run {run.name} has no {missing}", line=run.line)
        self.key_type_runs.append(
            KeyTypeRun(
                name=run.name,
                minutes=run.minutes,
                rows=run.rows,
                reads=self._meter(run, "reads"),
                writes=self._meter(run, "writes") or self._meter(run, "meter"),
                line=run.line,
                group=run.group,
            )
        )
        self.check_statements(run.line)

    def _meter(self, run: _Run, kind: str) -> MeterReading | None:
        values = run.meters.get(kind)
        if not values:
            return None
        missing = [name for name, key in METER_FIELDS.items() if key not in values]
        if missing and self.cut_off_last_line:
            # The log ends inside this meter: keep the run, not half a meter.
            self.mark("cut_off", run.line, f"the {run.name}-{kind} meter is cut off: left out")
            return None
        if missing:
            raise LogError(f"the {run.name}-{kind} meter has no {missing[0]}", line=run.line)
        return MeterReading(**values)
