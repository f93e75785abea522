"""Reads of the leaderboard (selectors): one place feeds the contest page, the API and the
downloads, so the sort, the filters and the embargo are decided once. Ranks are derived where
they are read (contests.ranks): a page in rank order works them out from its rows' positions,
any other page looks its rows' ranks up in the ranking keys its process keeps (board/kept_ranks,
checked against the tally with the page; else a window over the contest's ranked entries), so
a filtered board shows the overall ranks and a new entry never rewrites anyone's. A page is a
count, a few reference rows and a slice of the ranked entries (read in the order of an index
of the ranking) or of the rest."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial

from django.db.models import Q, QuerySet

from submissions import tracks
from submissions.board import kept_ranks
from submissions.board.order import (
    board_counts,
    board_placement,
    entry_order,
    filtered_counts,
    placement_parts,
    public_name,
    sorted_references,
    tally_kept,
)
from submissions.board.query import (
    DEEPEST_ROW,
    VIRTUAL_DRIVE,
    LeaderboardQuery,
    board_order,
    board_sort_parts,
    deepest_page,
)
from submissions.board.rows import BoardPage, BoardRow, entry_row, mark_tie_breaks, reference_row
from submissions.caches.compiled import (
    CompiledValues,
    compiled_instances,
    compiled_sql,
    compiled_values,
    instances_of,
    read_now,
    reading_ahead,
    rows_of,
    values_of,
)
from submissions.caches.soft_cache import cache_get, cache_set
from submissions.contests.rank_query import ranked_q
from submissions.contests.ranks import ranks_in_order, ranks_of
from submissions.entries.outcome import OUTCOME_FIELDS
from submissions.entries.trust import trust_columns, trust_lookups
from submissions.measures.costs import BOARD_COSTS
from submissions.measures.ranking import interleave, page_slots, reference_positions
from submissions.models import Contest, ReferenceResult, Submission, verified_q
from submissions.setup.cpus import cpu_model_name, cpu_variants_q
from submissions.setup.engines import normalised_engine

BOARD_ENTRY_FIELDS = (
    "id", "public_name", "storage_engine", "sockets", "cpu_model", "cores", "memory_gb",
    "drives", "drive_kind", "raid_level", "seconds_to_target", "estimated", "terminal_rate",
    "average_rate", "eligible", "ineligible_reason", "rows", "track_figures",
    "track_metric", "track_class", "elapsed_seconds", "estimate_basis", "demo",
    *OUTCOME_FIELDS,
    "db_size_bytes", *(cost.figure for cost in BOARD_COSTS),
)  # fmt: skip


def _board_entries(contest: Contest, query: LeaderboardQuery) -> QuerySet[Submission]:
    entries = Submission.objects.filter(contest=contest)
    if query.engine:
        # The normalised engine: "InnoDB" finds "InnoDB plugin 1.0" too (submissions/setup/engines.py).
        entries = entries.filter(engine__iexact=query.engine)
    if query.drive == VIRTUAL_DRIVE:
        entries = entries.filter(direct_attached=False)
    elif query.drive:
        entries = entries.filter(drive_kind=query.drive)
    if query.cpu:
        entries = entries.filter(cpu_variants_q(query.cpu))
    if query.cores:
        entries = entries.filter(cores=query.cores)
    if query.memory_gb:
        entries = entries.filter(memory_gb=query.memory_gb)
    if query.verified:
        entries = entries.filter(verified_q())
    if query.trust:
        entries = entries.filter(trust_q(query.trust))
    return entries


def trust_q(level: str) -> Q:
    """Entries of one trust level, as entries/trust.py says them."""
    include, exclude = trust_lookups(level)
    return Q(**include) & ~Q(**exclude) if exclude else Q(**include)


def board_references(contest: Contest) -> list[ReferenceResult]:
    """The contest's reference rows, read once per contest instance (as prefetching them
    would keep them) by a statement compiled once per process."""
    cache = getattr(contest, "_prefetched_objects_cache", None)
    if cache is None or "references" not in cache:
        references = instances_of(references_read(contest))
        for reference in references:
            reference.contest = contest  # as the related manager would
        kept = contest.references.all()
        kept._result_cache, kept._prefetch_done = references, True
        contest._prefetched_objects_cache = {**(cache or {}), "references": kept}
    return list(contest.references.all())


def _board_references(contest: Contest, query: LeaderboardQuery, references) -> list:
    if query.verified or query.trust or query.hardware or query.drive == VIRTUAL_DRIVE:
        # The registry never re-ran nor watched a published result, and its hardware is text.
        return []
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

    contest: Contest
    query: LeaderboardQuery
    parts: tuple
    references: list[BoardRow]
    positions: list[int]
    entry_count: int
    ranked_count: int
    track: tracks.Track
    capped: bool = False  # counted up to a bound (a filtered page, SQLite's): a lower bound
    to_page: bool = False  # counted up to the page's rows and one more (a filtered board's page)

    @property
    def count(self) -> int:
        return self.entry_count + len(self.references)

    def ordered(self, *, ranked: bool | None) -> QuerySet[Submission]:
        """The ranked entries in the board's order (`ranked=True`), the others, or both (None):
        the ranked ones always come first."""
        return _ordered(self.contest, self.query, self.parts, self.track, ranked=ranked)

    @property
    def in_rank_order(self) -> bool:
        """The whole board's ranked entries in rank order, one class after another: their
        ranks follow from their positions."""
        return _in_rank_order(self.query, self.parts)


def _ordered(contest, query, parts, track, *, ranked: bool | None) -> QuerySet[Submission]:
    entries = (
        _board_entries(contest, query)
        .annotate(public_name=public_name())
        .values(*BOARD_ENTRY_FIELDS, *trust_columns())
    )
    if ranked is not None:
        condition = ranked_q(track)
        entries = entries.filter(condition) if ranked else entries.exclude(condition)
    return entries.order_by(*entry_order(parts, track, ranked=ranked))


def _in_rank_order(query: LeaderboardQuery, parts: tuple) -> bool:
    if query.filtered:
        return False
    for part in parts:
        if part.entry_field == "rank":
            return not part.descending
        if part.entry_field != "track_class":
            return False
    return False


def _first_rows(contest, query, parts, track, size: int) -> CompiledValues:
    """The board's first `size` ranked entries, compiled: a first page in rank order is a
    prefix of them (its reference rows take the place of its last entries), so they are read
    with the board's counts, in the same round trip."""
    return compiled_values(
        ("rows", *_board_key(contest, query), True, 0, size),
        lambda: _ordered(contest, query, parts, track, ranked=True)[:size],
    )


def _board_key(contest: Contest, query: LeaderboardQuery) -> tuple:
    """All that the SQL of a board's reads depends on (caches/compiled.py): the track (the
    contest's workload) gives the ranking, the sort and the filters the rest."""
    return (
        contest.pk, contest.workload, query.sort, query.engine, query.drive, query.verified,
        query.trust, query.hardware,
    )  # fmt: skip


def _board(
    contest: Contest, query: LeaderboardQuery, *, within: int | None = None, first: int = 0
) -> _Board:
    """The board's order and counts. `within`: only the board's first `within` rows are
    shown (a page): on a whole board whose counts PostgreSQL keeps, they are read and a
    reference row is placed among the first `within` entries only. None: the whole board (a
    download). `first`: the size of a first page in rank order, whose entries are read with
    the counts."""
    track = contest.track
    order = board_order(track)
    parts = board_sort_parts(query.sort, order)
    placement = placement_parts(parts, order.rank_placement)
    references = sorted_references(
        placement, _board_references(contest, query, board_references(contest))
    )
    key = _board_key(contest, query)
    bound = None
    if within is not None and not query.filtered and tally_kept(track):

        def ranked_in_order() -> QuerySet[Submission]:
            return (
                _board_entries(contest, query)
                .filter(ranked_q(track))
                .order_by(*entry_order(parts, track, ranked=True))
            )

        total, ranked, before = board_placement(
            ranked_in_order,
            placement,
            references,
            track,
            within=within,
            contest_id=contest.pk,
            key=key,
            with_it=[_first_rows(contest, query, parts, track, first)] if first else [],
        )
    elif within is not None and query.filtered:
        # Counted as far as the page reaches, and one row more: a next page follows or not.
        bound = within + 1

        def ranked_filtered() -> QuerySet[Submission]:
            return (
                _board_entries(contest, query)
                .filter(ranked_q(track))
                .order_by(*entry_order(parts, track, ranked=True))
            )

        total, ranked, before = filtered_counts(
            ranked_filtered,
            lambda: _board_entries(contest, query).exclude(ranked_q(track)),
            placement,
            references,
            track,
            within=within,
            key=key,
        )
    else:  # a download, a whole board on SQLite: counted, once per board version
        bound = None if within is None else max(DEEPEST_ROW, within)
        total, ranked, before = _counts(contest, query, placement, references, bound, within)
    # Counts follow the order the references were sorted in; a stable sort keeps it exact
    # where the database's string order and Python's would disagree.
    placed = sorted(zip(before, references, strict=True), key=lambda pair: pair[0])
    return _Board(
        contest=contest,
        query=query,
        parts=parts,
        references=[reference_row(track, reference) for _, reference in placed],
        positions=reference_positions([before for before, _ in placed]),
        entry_count=total,
        ranked_count=ranked,
        track=track,
        capped=bound is not None and (ranked >= bound or total - ranked >= bound),
        to_page=query.filtered and within is not None,
    )


# How long a board's counts are kept: any change moves the board version (in the key) on.
COUNTS_CACHE_SECONDS = 3_600


def _counts(contest: Contest, query: LeaderboardQuery, placement, references, bound, within):
    """board_counts, counted once per board version, filters and order (and, for a page, up
    to `bound` rows and references placed within `within`): the other pages, page sizes and
    the API of the same board and version share it."""
    what = (
        contest.pk, contest.board_version, query.engine.lower(), query.drive, query.verified,
        query.trust, query.hardware, [(part.entry_field, part.descending) for part in placement],
        [reference.pk for reference in references], bound, within,
    )  # fmt: skip
    key = "board-counts:" + hashlib.sha256(repr(what).encode()).hexdigest()[:40]
    kept = cache_get(key)
    if kept is not None:
        return kept
    counts = board_counts(
        _board_entries(contest, query),
        placement,
        references,
        contest.track,
        key=_board_key(contest, query),
        bound=bound,
        within=within,
    )
    cache_set(key, counts, COUNTS_CACHE_SECONDS)
    return counts


def _entries_between(board: _Board, start: int, stop: int, *, first_page: int = 0) -> list[dict]:
    """The entries at positions [start, stop) of the board's order, with their ranks: a slice
    of the ranked entries (read in the order of an index in rank order) or of the rest, or
    of both where a page holds both. `first_page`: the entries are a prefix of the board's
    first `first_page` ranked entries when they lie within them (`_first_rows`)."""
    ranked_count = board.ranked_count
    if stop <= ranked_count:
        which, first, last = True, start, stop
    elif start >= ranked_count:
        which, first, last = False, start - ranked_count, stop - ranked_count
    else:
        which, first, last = None, start, stop
    if which is True and first == 0 and 0 < last <= first_page:
        compiled = _first_rows(board.contest, board.query, board.parts, board.track, first_page)
        rows = values_of(compiled)[:last]
    else:
        compiled = compiled_values(
            ("rows", *_board_key(board.contest, board.query), which, first, last),
            lambda: board.ordered(ranked=which)[first:last],
        )
        check = None
        if not board.in_rank_order and which is not False and kept_ranks.keeps(board.track):
            # The tally's check of the kept ranking keys, in the rows' round trip.
            check = kept_ranks.ranking_check(board.contest)
            read_now([check, compiled])
        rows = values_of(compiled)
    ranked = rows[: max(0, ranked_count - start)]
    if board.in_rank_order:
        ranks = ranks_in_order(contest=board.contest, rows=ranked, first=start)
    else:
        ranks = None
        if check is not None:
            ranks = kept_ranks.ranks_by_keys(board.contest, ranked, check) if ranked else {}
        if ranks is None:
            ranks = ranks_of(contest=board.contest, ids=[row["id"] for row in ranked])
    for row in rows:
        row["rank"] = ranks.get(row["id"])
    return rows


def leaderboard_page(*, contest: Contest, query: LeaderboardQuery) -> BoardPage:
    """One page of a contest's board: ranked entries with the reference rows placed among
    them, then the entries that are not ranked. A handful of queries whatever the board's
    size."""
    with reading_ahead([]):  # the first page's entries are read with its counts
        return _leaderboard_page(contest, query)


def _leaderboard_page(contest: Contest, query: LeaderboardQuery) -> BoardPage:
    track = contest.track
    parts = board_sort_parts(query.sort, board_order(track))
    first = query.page_size if query.page == 1 and _in_rank_order(query, parts) else 0
    # No page starts past DEEPEST_ROW: a deeper one asked for shows the last served.
    deepest = deepest_page(query.page_size)
    asked = min(query.page, deepest)
    # The rows up to the page asked for: a page past the end shows the last, which is within.
    board = _board(contest, query, within=asked * query.page_size, first=first)
    last_page = min(max(1, -(-board.count // query.page_size)), deepest)
    page = min(asked, last_page)
    offset = (page - 1) * query.page_size
    length = max(0, min(query.page_size, board.count - offset))
    slots = page_slots(offset, length, board.positions)
    entries = []
    if slots.entry_limit > 0:
        end = slots.entry_offset + slots.entry_limit
        entries = _entries_between(board, slots.entry_offset, end, first_page=first)
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
        count_capped=board.capped,
        counted_to_page=board.to_page,
        last_page=deepest,
    )


def first_ranked_row(*, contest: Contest, query: LeaderboardQuery) -> BoardRow | None:
    """The board's first ranked entry in its order (its sort and filters), with its overall
    rank, and no count: one row from the top of the index of that order (the home page's best
    verified entry; a filtered board's page would count its matches, thousands of them). The
    reference rows are not entries: they are never this row."""
    track = contest.track
    parts = board_sort_parts(query.sort, board_order(track))
    compiled = compiled_values(
        ("rows", *_board_key(contest, query), True, 0, 1),
        lambda: _ordered(contest, query, parts, track, ranked=True)[:1],
    )
    with reading_ahead([]):
        if _in_rank_order(query, parts):
            rows = values_of(compiled)
            ranks = ranks_in_order(contest=contest, rows=rows, first=0)
        else:
            # Its rank looked up in the kept ranking keys (checked against the tally) once a
            # row is found: a caller that reads ahead (`reading_ahead`'s `learn`) reads both
            # at once from its second build.
            rows = values_of(compiled)
            ranks = None
            if rows and kept_ranks.keeps(track):
                ranks = kept_ranks.ranks_by_keys(contest, rows, kept_ranks.ranking_check(contest))
            if ranks is None and rows:
                ranks = ranks_of(contest=contest, ids=[row["id"] for row in rows])
    if not rows:
        return None
    row = rows[0]
    row["rank"] = ranks.get(row["id"])
    return entry_row(track, row)


def leaderboard_rows(*, contest: Contest, query: LeaderboardQuery) -> Iterator[BoardRow]:
    """The whole board in order, read in chunks: for the downloads."""
    board = _board(contest, query)
    ranks = ranks_of(contest=contest)

    def entries() -> Iterator[dict]:
        for row in board.ordered(ranked=None).iterator(chunk_size=2_000):
            yield {**row, "rank": ranks.get(row["id"])}

    slots = page_slots(0, board.count, board.positions)
    return interleave(
        map(partial(entry_row, board.track), entries()), board.references, slots, board.count
    )


# A loose index scan (one index probe per distinct engine) instead of DISTINCT, which reads
# every entry of the contest.
ENGINES_SQL = """
    WITH RECURSIVE engines(name) AS (
        SELECT MIN(engine) FROM submissions_submission WHERE contest_id = %s
        UNION ALL
        SELECT (SELECT MIN(engine) FROM submissions_submission
                WHERE contest_id = %s AND engine > engines.name)
        FROM engines WHERE engines.name IS NOT NULL
    )
    SELECT name FROM engines WHERE name IS NOT NULL AND name <> ''
"""


def engines_key(contest_id: int) -> tuple:
    return ("engines", contest_id)


def engines_read(contest_id: int) -> CompiledValues:
    return compiled_sql(engines_key(contest_id), ENGINES_SQL, (contest_id, contest_id), ("name",))


def references_key(contest_id: int) -> tuple:
    return ("references", contest_id)


def references_read(contest: Contest) -> CompiledValues:
    return compiled_instances(
        references_key(contest.pk), lambda: ReferenceResult.objects.filter(contest=contest)
    )


@dataclass(frozen=True)
class HardwareChoices:
    """What a board's like-hardware filters offer: the CPU models (one name per model), the
    core counts and the memory sizes of its entries."""

    cpus: list[str]
    cores: list[int]
    memory_gb: list[float]


def _loose_scan(name: str, column: str) -> str:
    """A contest's distinct values of one column, one index probe each (as ENGINES_SQL)."""
    # Constants only (the three calls below): nothing from a request is in the SQL.
    return f"""{name}(v) AS (
        SELECT MIN({column}) FROM submissions_submission WHERE contest_id = %s
        UNION ALL
        SELECT (SELECT MIN({column}) FROM submissions_submission
                WHERE contest_id = %s AND {column} > {name}.v)
        FROM {name} WHERE {name}.v IS NOT NULL
    )"""  # noqa: S608  # nosec B608


# The board's machines for its filters, from the (contest, column) indexes alone: as many
# probes as distinct values, whatever the entries' number.
MACHINES_SQL = f"""
    WITH RECURSIVE {_loose_scan("cpus", "cpu_model")}, {_loose_scan("core_counts", "cores")},
    {_loose_scan("memories", "memory_gb")}
    SELECT 'cpu', v, NULL FROM cpus WHERE v IS NOT NULL AND v <> ''
    UNION ALL SELECT 'cores', NULL, CAST(v AS DOUBLE PRECISION) FROM core_counts
        WHERE v IS NOT NULL
    UNION ALL SELECT 'memory', NULL, CAST(v AS DOUBLE PRECISION) FROM memories
        WHERE v IS NOT NULL
"""  # noqa: S608  # nosec B608: the column names are constants, the contest a parameter


def machines_key(contest_id: int) -> tuple:
    return ("machines", contest_id)


def machines_read(contest_id: int) -> CompiledValues:
    return compiled_sql(
        machines_key(contest_id), MACHINES_SQL, (contest_id,) * 6, ("kind", "text", "number")
    )


def board_hardware(*, contest: Contest) -> HardwareChoices:
    """The choices of the board's like-hardware filters: its entries' CPU models (variants of
    one model under its name), core counts and memory sizes."""
    cpus: dict[str, str] = {}
    cores, memory = [], []
    for kind, text, number in rows_of(machines_read(contest.pk)):
        if kind == "cpu":
            name = cpu_model_name(text)
            cpus.setdefault(name.lower(), name)
        elif kind == "cores":
            cores.append(int(number))
        else:
            memory.append(number)
    return HardwareChoices(sorted(cpus.values(), key=str.lower), cores, memory)


def leaderboard_engines(*, contest: Contest) -> list[str]:
    """The storage engines a board can be filtered by: the normalised ones, one spelling each."""
    names = [name for (name,) in rows_of(engines_read(contest.pk))]
    found: dict[str, str] = {}
    references = [normalised_engine(each.storage_engine) for each in board_references(contest)]
    for name in [*names, *references]:
        found.setdefault(name.lower(), name)
    return sorted(found.values(), key=str.lower)
