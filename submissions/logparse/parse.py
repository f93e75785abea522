"""parse_log: from an uploaded file object to a ParsedLog."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from itertools import chain, groupby
from typing import BinaryIO

from .c_format import CFormatParse, key_type_run
from .common import Detection, LogParse
from .detect import detect
from .errors import LogError, LogTooLarge, num
from .java_iibench import JavaConsoleParse, JavaTsvParse
from .metrics_console import MetricsConsoleParse
from .model import MAX_LINES, ParsedLog, Series
from .python_iibench import PythonIibenchParse
from .reader import LogReader
from .sysbench import SysbenchParse

PARSERS: dict[str, type[LogParse]] = {
    "iibench-c": CFormatParse,
    "java-iibench": JavaConsoleParse,
    "java-iibench-tsv": JavaTsvParse,
    "sysbench-iibench": SysbenchParse,
    "metrics-console": MetricsConsoleParse,
}


def parse_log(
    source: BinaryIO,
    *,
    max_expanded_bytes: int = 1 << 30,
    max_line_chars: int = 65536,
    declared: Mapping[str, int] | None = None,
    max_reports: int | None = None,
    max_lines: int = MAX_LINES,
    max_seconds: float | None = None,
) -> ParsedLog:
    """Read an iiBench log as uploaded (plain or .gz) and return what it says.

    Raises LogError, naming the line, for what is not an iiBench log or is not one any more
    (edited, joined, truncated). `declared` carries what the entrant declared that the log
    cannot say (sysbench's rows per INSERT); using it adds an "assumption" marker.
    `max_reports`: a log with more report lines is refused (checked block by block, so at
    most a block's reports beyond the limit are ever held). `max_lines` counts every line,
    `max_seconds` bounds the read and parse (LogReader); each refusal is a LogTooLarge.
    """
    reader = LogReader(
        source,
        max_expanded_bytes=max_expanded_bytes,
        max_line_chars=max_line_chars,
        max_lines=max_lines,
        max_seconds=max_seconds,
    )
    blocks = reader.blocks()
    detection, seen = detect(blocks)
    parser_class = PARSERS.get(detection.format, PythonIibenchParse)
    parser = parser_class(reader, detection, declared or {})
    parser.parse(_limited(_read_again(seen, blocks), parser, max_reports))
    return parser.result()


def _read_again(seen: list[Sequence[str]], blocks: Iterator[Sequence[str]]):
    """The blocks detection read, each let go once handed over (a block and its lines are a
    few MB the parse would otherwise hold to its end), then the rest."""
    seen.reverse()
    while seen:
        yield seen.pop()
    yield from blocks


def _limited(
    blocks: Iterable[Sequence[str]], parser: LogParse, max_reports: int | None
) -> Iterator[Sequence[str]]:
    """The blocks, stopped with an error naming the limit once the series holds more than
    `max_reports` reports: memory stays bounded whatever the log's length."""
    for block in blocks:
        _check_reports(parser, max_reports)
        yield block
    _check_reports(parser, max_reports)


def _check_reports(parser: LogParse, max_reports: int | None) -> None:
    if max_reports is not None and len(parser.series) > max_reports:
        raise LogTooLarge(
            f"the log has more than {num(max_reports)} report lines, more than this registry "
            "keeps: report less often (a larger --rows_per_report or --secs_per_report) or "
            "upload a shorter run",
            line=int(parser.series.line[max_reports]),
            limit="reports",
        )


C_RUN_START = "# iibench-c"
# Runs in one file (seed 004 prints three): each is kept whole to the file's end.
MAX_RUNS = 100


def parse_log_runs(
    source: BinaryIO,
    *,
    max_expanded_bytes: int = 1 << 30,
    max_line_chars: int = 65536,
    max_lines: int = MAX_LINES,
    max_seconds: float | None = None,
) -> list[ParsedLog]:
    """Like parse_log, for a file holding several runs of this project's C benchmark printed
    one after another (`cat autoinc.log uuid-char.log uuid-ordered.log`: seed 004's three key
    types): one ParsedLog per run, with the file's own line numbers. Any other log is one run.
    Streams like parse_log: one run is read while the next has not been. The same limits as
    parse_log, over the whole file."""
    reader = LogReader(
        source,
        max_expanded_bytes=max_expanded_bytes,
        max_line_chars=max_line_chars,
        max_lines=max_lines,
        max_seconds=max_seconds,
    )
    blocks = reader.blocks()
    detection, seen = detect(blocks)
    lines = chain(seen, blocks)
    if detection.format != "iibench-c":
        parser = PARSERS.get(detection.format, PythonIibenchParse)(reader, detection, {})
        parser.parse(lines)
        return [parser.result()]
    runs = []
    for number, pieces in groupby(_c_run_pieces(lines), key=lambda piece: piece[0]):
        pieces = iter(pieces)
        _, first_line, first_block = next(pieces)
        run_detection = detection
        if number:
            run_detection = Detection("iibench-c", first_line, first_block[0])
        if len(runs) >= MAX_RUNS:
            raise LogTooLarge(
                f"the file holds more than {num(MAX_RUNS)} runs (each starts with "
                f"'{C_RUN_START}'): upload the key-type runs only",
                line=first_line,
                limit="statements",
            )
        parser = CFormatParse(reader, run_detection, {})
        parser.parse(chain([first_block], (block for *_, block in pieces)), first_line=first_line)
        runs.append(parser.result())
    return runs


def _c_run_pieces(blocks: Iterable[list[str]]) -> Iterator[tuple[int, int, list[str]]]:
    """(run number, first line number, lines): the blocks cut where a run's first line is."""
    run, line, started = 0, 1, False
    for block in blocks:
        start = 0
        for index, text in enumerate(block):
            if not text.startswith(C_RUN_START):
                continue
            if started and index > start:
                yield run, line + start, block[start:index]
            if started:
                run, start = run + 1, index
            started = True
        if start < len(block):
            yield run, line + start, block[start:]
        line += len(block)


def key_type_log(runs: list[ParsedLog]) -> ParsedLog:
    """Several C benchmark runs (`--pk autoinc`, `uuid-char`, `uuid-ordered`) as one log of
    key-type runs, like the metrics console's. A single log of another kind is itself."""
    if len(runs) == 1 and runs[0].format != "iibench-c":
        return runs[0]
    key_types = []
    for run in runs:
        found = key_type_run(run)
        if found is None:
            line = run.totals.line if run.totals else None
            raise LogError(
                "a run that states no key kind (# param pk=...) or inserted no row: "
                "upload the output of iibench --pk autoinc, uuid-char and uuid-ordered",
                line=line,
            )
        key_types.append(found)
    first = runs[0]
    return replace(
        first,
        series=Series(),
        totals=None,
        markers=[marker for run in runs for marker in run.markers],
        key_type_runs=key_types,
        line_count=runs[-1].line_count,
    )
