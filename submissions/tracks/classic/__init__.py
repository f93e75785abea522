"""Indexed insertion, the classic run (Tokutek's 2008 challenge): 1,000,000,000 rows into a
table with three secondary indexes, ranked by the time to the contest's target rows."""

from __future__ import annotations

from submissions.measures.ranking import RankKey

from ..base import ALL_CLASSIC, LOG_SERIES, Ranking, Track
from .references import REFERENCES

CLASSIC = Track(
    workload="classic",
    label="Indexed insertion (the classic run)",
    log=LOG_SERIES,
    figures=lambda log, declared, rules: {},
    classic_rules=ALL_CLASSIC,
    # Fastest to the target rows first, measured times before estimates whatever their values
    # (an estimate never ranks as if measured); a tie goes to the higher terminal rate.
    ranking=Ranking(
        "time to the target rows",
        descending=False,
        keys=(
            RankKey("estimated"),
            RankKey("seconds_to_target", required=True),
            RankKey("terminal_rate", descending=True),
        ),
    ),
    references=REFERENCES,
)
