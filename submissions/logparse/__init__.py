"""Parse the logs iiBench implementations print: pure Python, no Django.

from submissions.logparse import parse_log, LogError
with open("run.log.gz", "rb") as upload:
    parsed = parse_log(upload)

Imports nothing of the registry: it is the first room a log enters.
"""

from .errors import LogError
from .model import (
    FORMAT_LABELS,
    IndexInfo,
    KeyTypeRun,
    LoadSummary,
    Marker,
    MeterReading,
    ParsedLog,
    Series,
    Stated,
    Totals,
)
from .parse import key_type_log, parse_log, parse_log_runs

__all__ = [
    "FORMAT_LABELS",
    "IndexInfo",
    "KeyTypeRun",
    "LoadSummary",
    "LogError",
    "Marker",
    "MeterReading",
    "ParsedLog",
    "Series",
    "Stated",
    "Totals",
    "key_type_log",
    "parse_log",
    "parse_log_runs",
]
