"""A board's order in SQL: the entries' ORDER BY, and how many entries come before each
reference row (references have no rank and are placed among the entries)."""

from __future__ import annotations

from django.db import connection
from django.db.models import BooleanField, Case, ExpressionWrapper, F, Q, QuerySet, Value, When
from django.db.models.functions import Lower

from submissions.board.query import RANK_PLACEMENT, SortPart
from submissions.models import ReferenceResult, Submission

ANONYMOUS = "Anonymous entrant"


def public_name() -> Case:
    return Case(When(publish=True, then="entrant_name"), default=Value(ANONYMOUS))


# Sort columns that are expressions rather than stored columns. They are written out in each
# query, never annotated: an aggregate over annotations makes Django rewrite every filter
# (tens of milliseconds per page).
SORT_EXPRESSIONS = {
    "public_name_key": lambda: Lower(public_name()),
    "engine_key": lambda: Lower("storage_engine"),
}


def _sort_expression(part: SortPart):
    build = SORT_EXPRESSIONS.get(part.entry_field)
    return build() if build else F(part.entry_field)


def entry_order(parts: tuple[SortPart, ...]) -> list:
    order = [] if parts[0].entry_field == "rank" else [_unranked_first_key()]
    for part in parts:
        field = _sort_expression(part)
        order.append(field.desc(nulls_last=True) if part.descending else field.asc(nulls_last=True))
    return [*order, F("rank").asc(nulls_last=True), "id"]


def _unranked_first_key():
    # Ranked entries (and the references among them) come first; the rest follow, same order.
    return ExpressionWrapper(Q(rank__isnull=True), output_field=BooleanField()).asc()


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
    return f"board.rank IS NOT NULL AND {sql}", params


def board_counts(
    entries: QuerySet[Submission], parts: tuple[SortPart, ...], references: list
) -> tuple[int, int, list[int]]:
    """The entries, the ranked ones and, for each reference row, the entries above it: one
    query. Written as SQL over the ORM's filtered rows because Django's aggregate() takes
    milliseconds to compile a few filtered counts (it re-hashes every nested condition).
    `parts` are placement parts (no rank)."""
    columns = {part.entry_field for part in parts}
    keys = {name: SORT_EXPRESSIONS[name]() for name in columns if name in SORT_EXPRESSIONS}
    board_sql, board_params = (
        entries.order_by().annotate(**keys).values("rank", *sorted(columns)).query.sql_with_params()
    )
    counts, params = ["COUNT(*)", "COUNT(*) FILTER (WHERE board.rank IS NOT NULL)"], []
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
