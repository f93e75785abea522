"""parse_log: from an uploaded file object to a ParsedLog."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import chain
from typing import BinaryIO

from .c_format import CFormatParse
from .common import LogParse
from .detect import detect
from .java_iibench import JavaConsoleParse, JavaTsvParse
from .metrics_console import MetricsConsoleParse
from .model import ParsedLog
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
) -> ParsedLog:
    """Read an iiBench log as uploaded (plain or .gz) and return what it says.

    Raises LogError, naming the line, for what is not an iiBench log or is not one any more
    (edited, joined, truncated). `declared` carries what the entrant declared that the log
    cannot say (sysbench's rows per INSERT); using it adds an "assumption" marker.
    """
    reader = LogReader(source, max_expanded_bytes=max_expanded_bytes, max_line_chars=max_line_chars)
    blocks = reader.blocks()
    detection, seen = detect(blocks)
    parser_class = PARSERS.get(detection.format, PythonIibenchParse)
    parser = parser_class(reader, detection, declared or {})
    parser.parse(chain(seen, blocks))
    return parser.result()
