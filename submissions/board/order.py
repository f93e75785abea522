"""A board's order in SQL: the entries' ORDER BY, and how many entries come before each
reference row (references have no rank and are placed among the entries)."""

from __future__ import annotations

from collections.abc import Callable

from django.db import connection
from django.db.models import Case, F, QuerySet, Value, When
from django.db.models.functions import Lower

from submissions import tracks
from submissions.board.query import RANK_PLACEMENT, SortPart
from submissions.caches.compiled import compiled_sql, read_now, rows_of, sql_of
from submissions.contests.rank_query import key_order, ranked_flag, ranked_q
from submissions.models import BoardTally, ReferenceResult, Submission

ANONYMOUS = "Anonymous entrant"


def public_name() -> Case:
    return Case(When(publish=True, then="entrant_name"), default=Value(ANONYMOUS))


# Sort columns that are expressions rather than stored columns. They are written out in each
# query, never annotated: an aggregate over annotations makes Django rewrite every filter
# (tens of milliseconds per page).
SORT_EXPRESSIONS = {
    "public_name_key": lambda: Lower(public_name()),
    "engine_key": lambda: Lower("storage_engine"),
    # Verified now (no edit of the setup since), as VerificationOutcome.verified says.
    "verified": lambda: F("verified_now"),
}


def _sort_expression(part: SortPart):
    build = SORT_EXPRESSIONS.get(part.entry_field)
    return build() if build else F(part.entry_field)


def entry_order(parts: tuple[SortPart, ...], track: tracks.Track, *, ranked: bool | None) -> list:
    """ORDER BY of a board's entries: the ranked ones (`ranked=True`, read on their own from
    an index in rank order), the others (`False`), or both (`None`), the ranked ones always
    first. Ties fall to the rank (the ranking's keys, for ranked entries), then the entry
    number, so a page boundary never shuffles rows."""
    both = ranked is None

    def ranking_key(key, reverse: bool = False):
        ordered = key_order(key, reverse=reverse)
        if not both:
            return ordered
        # Only a ranked entry has a rank: the others tie here and fall to what follows.
        value = Case(When(ranked_q(track), then=F(key.column)))
        return (
            value.asc(nulls_first=ordered.nulls_first, nulls_last=ordered.nulls_last)
            if not ordered.descending
            else value.desc(nulls_first=ordered.nulls_first, nulls_last=ordered.nulls_last)
        )

    order = [ranked_flag(track).desc()] if both else []
    for part in parts:
        if part.entry_field == "rank":
            # In rank order the ranking's keys follow this part (board_order); the other way
            # round they are reversed here. Entries that are not ranked have no rank.
            if part.descending and ranked is not False:
                order.extend(ranking_key(key, reverse=True) for key in track.ranking.order)
            continue
        field = _sort_expression(part)
        order.append(field.desc(nulls_last=True) if part.descending else field.asc(nulls_last=True))
    if ranked is not False and not any(part.entry_field == "rank" for part in parts):
        order.extend(ranking_key(key) for key in track.ranking.order)
    return [*order, "id"]


def placement_parts(
    parts: tuple[SortPart, ...], rank_placement: tuple[SortPart, ...] = RANK_PLACEMENT
) -> tuple[SortPart, ...]:
    placed: list[SortPart] = []
    for part in parts:
        if part.entry_field == "rank":
            placed.extend(p.reversed() if part.descending else p for p in rank_placement)
        else:
            placed.append(part)
    # A column already compared decides nothing more further down (keeps the SQL small).
    seen: set[str] = set()
    return tuple(p for p in placed if not (p.entry_field in seen or seen.add(p.entry_field)))


def _entries_before_sql(parts: tuple[SortPart, ...], reference: ReferenceResult):
    """SQL over the `board` columns: a ranked entry comes before this reference row, being
    earlier in the order or tied with it (a tie goes to the entry). Mirrors `entry_order`,
    missing values last. Column names come from SORTS, values are parameters. `parts` are
    placement parts already (no rank)."""
    sql, params = "TRUE", []  # tied on every part so far: the entry comes first
    for part in reversed(parts):
        column = f'board."{part.entry_field}"'
        value = part.reference_value(reference)
        if value is None:
            sql = f"({column} IS NOT NULL OR ({column} IS NULL AND {sql}))"
        else:
            beats = ">" if part.descending else "<"
            sql = f"({column} {beats} %s OR ({column} = %s AND {sql}))"
            params = [value, value, *params]
    return f"board.ranked AND {sql}", params


def board_counts(
    entries: QuerySet[Submission],
    parts: tuple[SortPart, ...],
    references: list,
    track: tracks.Track,
    *,
    key: tuple,
    bound: int | None = None,
    within: int | None = None,
) -> tuple[int, int, list[int]]:
    """The entries, the ranked ones and, for each reference row, the entries above it: one
    query. `bound`: the ranked and the other entries are each counted up to `bound` (a
    page of a whole board the tally does not count, SQLite's: it stops reading once it found
    that many; a filtered page is counted by filtered_counts), and the entries above a
    reference row up to `within` (the rows the page reaches: a row placed past them is past
    the page all the same). Written as SQL over the ORM's filtered rows because Django's aggregate() takes
    milliseconds to compile a few filtered counts (it re-hashes every nested condition).
    `parts` are placement parts (no rank); `key`: all the filtered rows' SQL depends on
    (caches/compiled.py)."""
    columns = {part.entry_field for part in parts}

    def board() -> QuerySet:
        keys = {name: SORT_EXPRESSIONS[name]() for name in columns if name in SORT_EXPRESSIONS}
        return (
            entries.order_by()
            .annotate(**keys, ranked=ranked_flag(track))
            .values("ranked", *sorted(columns))
        )

    board_sql, board_params = sql_of(("counted", *key, *sorted(columns)), board)
    if bound is not None:
        return _bounded_counts(board_sql, board_params, parts, references, bound, within or bound)
    counts, params = ["COUNT(*)", "COUNT(*) FILTER (WHERE board.ranked)"], []
    for reference in references:
        condition, condition_params = _entries_before_sql(parts, reference)
        counts.append(f"COUNT(*) FILTER (WHERE {condition})")
        params.extend(condition_params)
    with connection.cursor() as cursor:
        cursor.execute(
            # Column names come from SORTS, every value is a parameter.
            f"SELECT {', '.join(counts)} FROM ({board_sql}) AS board",  # noqa: S608  # nosec B608
            [*params, *board_params],
        )
        total, ranked, *before = cursor.fetchone()
    return total, ranked, before


def _bounded_counts(board_sql, board_params, parts, references, bound: int, within: int):
    def found(condition: str, limit: int) -> str:
        # LIMIT without ORDER BY: the scan stops at the limit-th row it finds.
        # The board's SQL, column names from SORTS and an integer: every value is a parameter.
        inner = f"SELECT 1 FROM ({board_sql}) AS board WHERE {condition} LIMIT {int(limit)}"  # noqa: S608  # nosec B608
        return f"(SELECT COUNT(*) FROM ({inner}) AS found)"  # noqa: S608  # nosec B608

    counts = [found("board.ranked", bound), found("NOT board.ranked", bound)]
    params = [*board_params, *board_params]
    for reference in references:
        condition, condition_params = _entries_before_sql(parts, reference)
        counts.append(found(condition, within))
        params.extend([*board_params, *condition_params])
    with connection.cursor() as cursor:
        # Column names come from SORTS, every value is a parameter.
        cursor.execute(f"SELECT {', '.join(counts)}", params)  # nosec B608
        ranked, others, *before = cursor.fetchone()
    return ranked + others, ranked, before


def _first_ranked_sql(
    ranked_in_order: Callable[[], QuerySet[Submission]],
    parts: tuple[SortPart, ...],
    track: tracks.Track,
    limit: int,
    key: tuple,
) -> tuple[str, tuple]:
    """The SQL of the first `limit` ranked entries in the board's order, with the columns the
    placement `parts` compare and whether each is ranked; compiled once per `key`."""
    columns = {part.entry_field for part in parts}

    def first() -> QuerySet:
        keys = {name: SORT_EXPRESSIONS[name]() for name in columns if name in SORT_EXPRESSIONS}
        return (
            ranked_in_order()
            .annotate(**keys, ranked=ranked_flag(track))
            .values("ranked", *sorted(columns))[:limit]
        )

    return sql_of((*key, limit, *sorted(columns)), first)


def filtered_counts(
    ranked_in_order: Callable[[], QuerySet[Submission]],
    others: Callable[[], QuerySet[Submission]],
    parts: tuple[SortPart, ...],
    references: list,
    track: tracks.Track,
    *,
    within: int,
    key: tuple,
) -> tuple[int, int, list[int]]:
    """A filtered board's page, counted as far as the page reaches and one row more (whether a
    next page follows), never further, in one query: (the entries, the ranked entries, and for
    each reference row the ranked entries above it). The ranked entries are the first
    `within + 1` in the board's order (read from its sort's index, as the page's OFFSET reads
    them), the reference rows placed among the first `within` of them (board_placement); the
    entries not ranked are counted only when the page reaches past the ranked ones (a filter
    no entry outside the ranking matches would otherwise read every such entry of the
    contest), up to `within + 1` too. A count of `within + 1` (either) is a lower bound.
    `ranked_in_order`: the filtered ranked entries in the board's order; `others`: the
    filtered entries not ranked; `parts`: placement parts (no rank); `key`: all their SQL
    depends on (caches/compiled.py)."""
    bound = within + 1
    first_sql, first_params = _first_ranked_sql(
        ranked_in_order, parts, track, bound, ("filtered first", *key)
    )
    others_sql, others_params = sql_of(
        ("filtered others", *key, bound), lambda: others().order_by().values("id")[:bound]
    )
    selected, params = ["COUNT(*) AS ranked"], []
    for number, reference in enumerate(references):
        condition, condition_params = _entries_before_sql(parts, reference)
        selected.append(f"COUNT(*) FILTER (WHERE {condition}) AS before{number}")
        params.extend(condition_params)
    # A CASE reads its subquery only when the page reaches past the ranked entries. Column
    # and table names from the models and SORTS, the bound an integer, every value a parameter.
    statement = compiled_sql(
        ("filtered counts", *key, within),
        f"SELECT counted.*, CASE WHEN counted.ranked >= {int(bound)} THEN 0 ELSE "  # noqa: S608
        f"(SELECT COUNT(*) FROM ({others_sql}) AS others) END FROM "
        f"(SELECT {', '.join(selected)} FROM ({first_sql}) AS board) AS counted",  # nosec B608
        (*others_params, *params, *first_params),
        ("ranked", *(f"before{n}" for n in range(len(references))), "others"),
    )
    read_now([statement])
    ((ranked, *before, others_count),) = rows_of(statement)
    ranked, others_count = int(ranked), int(others_count)
    return ranked + others_count, ranked, [min(int(count), within) for count in before]


def sorted_references(parts: tuple[SortPart, ...], references: list) -> list:
    """`parts`: placement parts (no rank)."""
    ordered = list(references)
    for part in reversed(parts):
        # Stable passes from the last part to the first; missing values last in each.
        present = [r for r in ordered if part.reference_value(r) is not None]
        missing = [r for r in ordered if part.reference_value(r) is None]
        present.sort(key=part.reference_value, reverse=part.descending)
        ordered = present + missing
    return ordered


# The tally's flag for each column a ranking may require (BoardTally).
TALLY_FLAGS = {"seconds_to_target": "has_time", "track_metric": "has_metric"}


def tally_kept(track: tracks.Track) -> bool:
    """Whether PostgreSQL keeps this board's counts (BoardTally, with every change of an
    entry): not on SQLite, nor for a ranking requiring a column the tally does not follow."""
    required = [key.column for key in track.ranking.order if key.required]
    return connection.vendor == "postgresql" and all(name in TALLY_FLAGS for name in required)


def _tally_sql(contest_id: int, track: tracks.Track) -> tuple[list[str], list]:
    """(entries, ranked entries) of a whole board, as two scalar subqueries of the tally: a
    read of a few rows, whatever the board's size."""
    table = BoardTally._meta.db_table
    ranked = " AND ".join(
        ["eligible", *(TALLY_FLAGS[key.column] for key in track.ranking.order if key.required)]
    )
    # The table's name from the model, the flags' from TALLY_FLAGS, the contest a parameter.
    whole = f"(SELECT COALESCE(SUM(entries), 0) FROM {table} WHERE contest_id = %s"  # noqa: S608  # nosec B608
    return [f"{whole})", f"{whole} AND {ranked})"], [contest_id, contest_id]


def board_placement(
    ranked_in_order: Callable[[], QuerySet[Submission]],
    parts: tuple[SortPart, ...],
    references: list,
    track: tracks.Track,
    *,
    within: int,
    contest_id: int,
    key: tuple,
    with_it: list | None = None,
) -> tuple[int, int, list[int]]:
    """One query: the whole board's (entries, ranked entries) from the tally, and for each
    reference row the ranked entries above it, counted among the board's first `within`
    ranked entries only (read in the board's order). The entries above a reference row are
    the first of them, so its count is exact below `within` and `within` otherwise, which
    places the row past the page's end all the same: a page reads as many entries as its
    OFFSET does, never the whole board. `parts` are placement parts (no rank);
    `ranked_in_order` builds the ranked entries in the board's order, `key` holds all its SQL
    depends on (caches/compiled.py). `with_it`: compiled statements the caller will read next,
    sent with this one (one round trip on PostgreSQL, within a `reading_ahead` block)."""
    selected, params = _tally_sql(contest_id, track)
    board_sql, board_params = "", []
    if references and within > 0:
        first_sql, board_params = _first_ranked_sql(
            ranked_in_order, parts, track, within, ("placed", *key)
        )
        board_sql = f" FROM ({first_sql}) AS board"
        for reference in references:
            condition, condition_params = _entries_before_sql(parts, reference)
            selected.append(f"COUNT(*) FILTER (WHERE {condition})")
            params.extend(condition_params)
    statement = compiled_sql(
        ("placement", *key, within),
        # Column and table names from the models and SORTS, every value is a parameter.
        f"SELECT {', '.join(selected)}{board_sql}",  # nosec B608
        (*params, *board_params),
        tuple(f"count{number}" for number in range(len(selected))),
    )
    read_now([statement, *(with_it or [])])
    ((total, ranked, *before),) = rows_of(statement)
    return int(total), int(ranked), [int(count) for count in before] or [0] * len(references)
