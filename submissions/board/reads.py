"""Reads of the leaderboard (selectors): one place feeds the contest page, the API and the
downloads, so the sort, the filters and the embargo are decided once. Ranks are derived in
the board's own query (contests.ranks.board_rank, a window over the contest's entries, the
filters applied above it so a filtered board shows the overall ranks): a new entry never
rewrites anyone's rank. A page is a count, a few reference rows and one slice of entries."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial

from django.db import connection
from django.db.models import Q, QuerySet

from submissions import tracks
from submissions.board.order import (
    board_counts,
    entry_order,
    placement_parts,
    public_name,
    sorted_references,
)
from submissions.board.query import LeaderboardQuery, board_order, board_sort_parts
from submissions.board.rows import BoardPage, BoardRow, entry_row, mark_tie_breaks, reference_row
from submissions.contests.ranks import board_rank
from submissions.entries.trust import STREAMED, VERIFIED
from submissions.measures.costs import BOARD_COSTS
from submissions.measures.ranking import interleave, page_slots, reference_positions
from submissions.models import Contest, Submission
from submissions.setup.engines import normalised_engine

BOARD_ENTRY_FIELDS = (
    "id", "rank", "public_name", "storage_engine", "sockets", "cpu_model", "cores", "memory_gb",
    "drives", "drive_kind", "raid_level", "seconds_to_target", "estimated", "terminal_rate",
    "average_rate", "verified", "eligible", "ineligible_reason", "rows", "track_figures",
    "track_metric", "track_class", "elapsed_seconds", "estimate_basis", "demo",
    "verification",
    "db_size_bytes", *(cost.figure for cost in BOARD_COSTS),
    "live_run__witnessed",
)  # fmt: skip


def _board_entries(contest: Contest, query: LeaderboardQuery) -> QuerySet[Submission]:
    entries = Submission.objects.filter(contest=contest).annotate(rank=board_rank(contest.track))
    shown = Q()
    if query.engine:
        # The normalised engine: "InnoDB" finds "InnoDB plugin 1.0" too (submissions/engines.py).
        shown &= Q(engine__iexact=query.engine)
    if query.drive:
        shown &= Q(drive_kind=query.drive)
    if query.verified:
        shown &= Q(verified=True)
    if query.trust:
        shown &= trust_q(query.trust)
    return entries.filter(_above_the_window(shown)) if shown else entries


def _above_the_window(condition: Q) -> Q:
    """The same condition, filtered after the ranks are computed. Django puts a filter that
    reads a window's result above the window (in an outer query) and any other filter beneath
    it, where it would rank the filtered entries among themselves; joined by OR with both
    cases of the rank, the condition reads it and goes above."""
    return (condition & Q(rank__isnull=True)) | (condition & Q(rank__isnull=False))


def trust_q(level: str) -> Q:
    """Entries of one trust level: a rerun verifies; a stream sealed with its clock agreeing is
    streamed (the live wing's field keeps its old name, `witnessed`: see entries/trust.py)."""
    if level == VERIFIED:
        return Q(verified=True)
    if level == STREAMED:
        return Q(verified=False, live_run__witnessed=True)
    return Q(verified=False) & ~Q(live_run__witnessed=True)


def _board_references(contest: Contest, query: LeaderboardQuery, references) -> list:
    if query.verified or query.trust:
        return []  # the registry never re-ran nor watched a published result
    return [
        reference
        for reference in references
        if (
            not query.engine
            or normalised_engine(reference.storage_engine).lower() == query.engine.lower()
        )
        and (not query.drive or reference.drive_kind == query.drive)
    ]


@dataclass(frozen=True)
class _Board:
    """A board's order, worked out before any entry row is read."""

    entries: QuerySet[Submission]
    order: list
    references: list[BoardRow]
    positions: list[int]
    entry_count: int
    ranked_count: int
    track: tracks.Track

    @property
    def count(self) -> int:
        return self.entry_count + len(self.references)


def _board(contest: Contest, query: LeaderboardQuery) -> _Board:
    track = contest.track
    order = board_order(track)
    parts = board_sort_parts(query.sort, order)
    placement = placement_parts(parts, order.rank_placement)
    entries = _board_entries(contest, query)
    references = sorted_references(
        placement, _board_references(contest, query, contest.references.all())
    )
    total, ranked, before = board_counts(entries, placement, references)
    # Counts follow the order the references were sorted in; a stable sort keeps it exact
    # where the database's string order and Python's would disagree.
    placed = sorted(zip(before, references, strict=True), key=lambda pair: pair[0])
    return _Board(
        entries=entries.annotate(public_name=public_name()).values(*BOARD_ENTRY_FIELDS),
        order=entry_order(parts),
        references=[reference_row(track, reference) for _, reference in placed],
        positions=reference_positions([before for before, _ in placed]),
        entry_count=total,
        ranked_count=ranked,
        track=track,
    )


def leaderboard_page(*, contest: Contest, query: LeaderboardQuery) -> BoardPage:
    """One page of a contest's board: ranked entries with the reference rows placed among
    them, then the entries that are not ranked. Four queries whatever the board's size."""
    board = _board(contest, query)
    last_page = max(1, -(-board.count // query.page_size))
    page = min(query.page, last_page)
    offset = (page - 1) * query.page_size
    length = max(0, min(query.page_size, board.count - offset))
    slots = page_slots(offset, length, board.positions)
    entries = []
    if slots.entry_limit > 0:
        # One query: a filter on ids here would go beneath the ranks' window and rank the
        # page's entries among themselves.
        end = slots.entry_offset + slots.entry_limit
        entries = board.entries.order_by(*board.order)[slots.entry_offset : end]
    rows = list(
        interleave(map(partial(entry_row, board.track), entries), board.references, slots, length)
    )
    mark_tie_breaks(rows)
    return BoardPage(
        rows=rows,
        count=board.count,
        page=page,
        page_size=query.page_size,
        ranked_count=board.ranked_count,
        reference_count=len(board.references),
    )


def leaderboard_rows(*, contest: Contest, query: LeaderboardQuery) -> Iterator[BoardRow]:
    """The whole board in order, read in chunks: for the downloads."""
    board = _board(contest, query)
    entries = board.entries.order_by(*board.order).iterator(chunk_size=2_000)
    slots = page_slots(0, board.count, board.positions)
    return interleave(
        map(partial(entry_row, board.track), entries), board.references, slots, board.count
    )


def leaderboard_engines(*, contest: Contest) -> list[str]:
    """The storage engines a board can be filtered by: the normalised ones, one spelling each."""
    # A loose index scan (one index probe per distinct engine) instead of DISTINCT, which
    # reads every entry of the contest.
    with connection.cursor() as cursor:
        cursor.execute(
            """
            WITH RECURSIVE engines(name) AS (
                SELECT MIN(engine) FROM submissions_submission WHERE contest_id = %s
                UNION ALL
                SELECT (SELECT MIN(engine) FROM submissions_submission
                        WHERE contest_id = %s AND engine > engines.name)
                FROM engines WHERE engines.name IS NOT NULL
            )
            SELECT name FROM engines WHERE name IS NOT NULL AND name <> ''
            """,
            [contest.pk, contest.pk],
        )
        names = [name for (name,) in cursor.fetchall()]
    found: dict[str, str] = {}
    references = [normalised_engine(each.storage_engine) for each in contest.references.all()]
    for name in [*names, *references]:
        found.setdefault(name.lower(), name)
    return sorted(found.values(), key=str.lower)
