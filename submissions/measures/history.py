"""A system's results over time: the best terminal rate as it stood on each date, for the pages of
an engine and of a CPU model. Pure: plain values in, plain values out."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Result:
    when: str  # ISO date or datetime: the entry's submission
    rate: float  # its terminal rate, rows/s
    label: str  # what the page calls it ("#12 Ada, iiBench 2008")


def best_over_time(results: Iterable[Result]) -> list[Result]:
    """The results that raised the best terminal rate, in time order: each one is the best from
    its date until the next. Results without a rate (a track ranked otherwise) are left out."""
    best: list[Result] = []
    for result in sorted(results, key=lambda result: result.when):
        if result.rate is None or result.rate != result.rate:
            continue
        if not best or result.rate > best[-1].rate:
            best.append(result)
    return best
