"""Indexed insertion, the classic run (Tokutek's 2008 challenge): 1,000,000,000 rows into a
table with three secondary indexes, ranked by the time to the contest's target rows."""

from __future__ import annotations

from ..base import ALL_CLASSIC, LOG_SERIES, Track
from .references import REFERENCES
from .rerun import RERUN

CLASSIC = Track(
    workload="classic",
    label="Indexed insertion (the classic run)",
    log=LOG_SERIES,
    figures=lambda log, declared, rules: {},
    classic_rules=ALL_CLASSIC,
    rerun=RERUN,
    references=REFERENCES,
)
