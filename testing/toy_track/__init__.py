"""A toy workload, written as a newcomer would add one: this folder, and one line in TRACKS
(the test adds that line). Ranked by the run's fastest report interval. Pure, like every track."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from submissions.contests.rules import RuleSet
from submissions.logparse.model import ParsedLog
from submissions.tracks.base import LOG_SERIES, SETUP, Ranking, Track, TrackColumn


def peak_figures(log: ParsedLog | None, declared: Mapping, rules: RuleSet) -> dict:
    rows = np.frombuffer(log.series.rows, dtype=np.int64).astype(np.float64)
    seconds = np.frombuffer(log.series.seconds, dtype=np.float64)
    rates = np.diff(np.concatenate(([0.0], rows))) / np.diff(np.concatenate(([0.0], seconds)))
    return {"peak_rate": float(rates.max()), "rows": int(rows[-1])}


TOY = Track(
    workload="toy_peak",
    label="Toy: peak insert rate",
    log=LOG_SERIES,
    figures=peak_figures,
    classic_rules=SETUP,
    ranking=Ranking("peak rate", descending=True, metric=lambda figures: figures["peak_rate"]),
    columns=(TrackColumn("Peak rate", lambda f: f["peak_rate"], "rate", metric=True),),
    tiles=(TrackColumn("Peak rate (rows/s)", lambda f: f["peak_rate"], "rate"),),
    plot="rate_curve",
    ranked_by="Ranked by the fastest report interval, highest first.",
)
