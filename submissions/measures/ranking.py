"""The leaderboard's rules as plain functions over plain data. No Django here.

Ranking: the entries that qualify are ordered by the time they took to reach the contest's
target rows, fastest first; a tie on that time goes to the higher terminal rate; entries equal
on both share a rank and the next rank skips ("standard competition ranking": 1, 2, 2, 4).
A track (submissions/tracks) ranks by its own metric instead, highest or lowest first, and
within each of its classes when it has some (bulk loading: keys and row length). Both are
rankings by keys (`RankKey`, `keyed_ranks`): each track's Ranking names the entry's values it
compares, in order (e.g. estimated or not, the time to the target, the terminal rate).

Placing reference rows: the seeds' published results are shown among the ranked entries where
their figures put them, but they are never ranked and only a page of entries is ever loaded.
`page_slots` works out which entries a page needs and where the reference rows go in it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import groupby
from typing import TypeVar


@dataclass(frozen=True)
class Standing:
    """What ranking needs to know about one entry."""

    entry_id: int
    seconds_to_target: float
    terminal_rate: float | None
    estimated: bool = False  # an extrapolated time ranks after every measured one


def _order(standing: Standing) -> tuple[bool, float, float]:
    # A missing terminal rate loses every tie: it is worse than any measured rate.
    rate = standing.terminal_rate
    return (
        standing.estimated,
        standing.seconds_to_target,
        -rate if rate is not None and math.isfinite(rate) else math.inf,
    )


def competition_ranks(standings: Iterable, key=_order) -> dict[int, int]:
    """Rank each entry: {entry_id: rank}, 1 for the best by `key` (the smallest), equal
    entries sharing a rank."""
    ranks: dict[int, int] = {}
    position = 1
    for _, tied in groupby(sorted(standings, key=key), key=key):
        tied = list(tied)
        for standing in tied:
            ranks[standing.entry_id] = position
        position += len(tied)
    return ranks


@dataclass(frozen=True)
class MetricStanding:
    """What a track's ranking needs to know about one entry: its metric and its class."""

    entry_id: int
    metric: float
    track_class: str = ""


def class_ranks(standings: Iterable[MetricStanding], *, descending: bool) -> dict[int, int]:
    """Rank each entry within its class by its metric: {entry_id: rank}, 1 for the best in
    each class (the highest metric when `descending`), equal metrics sharing a rank."""
    ranks: dict[int, int] = {}

    def by_metric(standing: MetricStanding) -> float:
        return -standing.metric if descending else standing.metric

    by_class = sorted(standings, key=lambda standing: standing.track_class)
    for _, members in groupby(by_class, key=lambda standing: standing.track_class):
        ranks.update(competition_ranks(members, key=by_metric))
    return ranks


@dataclass(frozen=True)
class RankKey:
    """One value of an entry a ranking compares, by its column name (a Submission field):
    smallest first, or largest when `descending`; a missing or infinite value loses to every
    present one. An entry without a `required` value is not ranked at all."""

    column: str
    descending: bool = False
    required: bool = False

    def sort_value(self, value) -> tuple[int, float]:
        if value is None or not math.isfinite(value):
            return (1, 0.0)
        return (0, -value if self.descending else value)


@dataclass(frozen=True)
class KeyedStanding:
    """One entry as a ranking by keys sees it: its values in the keys' order, and its class."""

    entry_id: int
    values: tuple
    track_class: str = ""


def keyed_ranks(standings: Iterable[KeyedStanding], keys: tuple[RankKey, ...]) -> dict[int, int]:
    """Rank each entry within its class by `keys`, the first deciding and the next breaking
    its ties: {entry_id: rank}, entries equal on every key sharing a rank. Entries missing a
    required key are left out."""

    def order(standing: KeyedStanding) -> tuple:
        return tuple(
            key.sort_value(value) for key, value in zip(keys, standing.values, strict=True)
        )

    qualifying = [
        standing
        for standing in standings
        if all(
            key.sort_value(value)[0] == 0
            for key, value in zip(keys, standing.values, strict=True)
            if key.required
        )
    ]
    ranks: dict[int, int] = {}
    by_class = sorted(qualifying, key=lambda standing: standing.track_class)
    for _, members in groupby(by_class, key=lambda standing: standing.track_class):
        ranks.update(competition_ranks(members, key=order))
    return ranks


@dataclass(frozen=True)
class PageSlots:
    """How to fill one page of the board.

    `entry_offset` and `entry_limit` slice the ordered entries; `reference_slots` maps a position
    on the page (0-based) to the index of the reference row shown there. Every other position
    takes the next entry of the slice, in order."""

    entry_offset: int
    entry_limit: int
    reference_slots: dict[int, int]


def reference_positions(entries_before: list[int]) -> list[int]:
    """Where each reference row sits on the whole board, given for each one (in board order)
    how many entries come before it. The references before it push it down too."""
    return [before + index for index, before in enumerate(entries_before)]


def page_slots(offset: int, limit: int, positions: list[int]) -> PageSlots:
    """The entries and references of the board rows [offset, offset + limit)."""
    references_above = sum(1 for position in positions if position < offset)
    on_page = {
        position - offset: index
        for index, position in enumerate(positions)
        if offset <= position < offset + limit
    }
    return PageSlots(offset - references_above, limit - len(on_page), on_page)


Row = TypeVar("Row")


def interleave(
    entries: Iterable[Row], references: list[Row], slots: PageSlots, length: int
) -> Iterator[Row]:
    """The rows of a page: references at their slots, entries in order everywhere else.
    Fewer entries than slots (one was deleted between the count and the page) leaves no hole."""
    entries = iter(entries)
    for slot in range(length):
        if slot in slots.reference_slots:
            yield references[slots.reference_slots[slot]]
            continue
        entry = next(entries, None)
        if entry is not None:
            yield entry
