"""The registry's entries newest first, a page at a time (the API's list), and the newly
published ones (the results feed), read by statements compiled once per process.

The ORM compiled the list's query (the entry's columns the list shows, its contest's slug, its
rules version and its stream, joined) at every request, and made model instances through its
generic path: together three times as long as PostgreSQL took to run it. The statement depends
only on who asks (an organizer, a signed-in entrant, anyone), on the page's place (an offset,
or a cursor; the first KEPT_PAGES pages) and its size; the moment (what is published by now), the entrant and the cursor's
position are its parameters, put in the kept statement's places (`caches/compiled.py`
`for_values`). It is prepared (planned once per connection) and its rows made into instances
as `select_related` makes them: the same values, through the same converters."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.db import connection
from django.db.models import DEFERRED, DateTimeField, F, Q, QuerySet, Value

from submissions.board.visibility import is_organizer, published_q
from submissions.caches.compiled import (
    PLACEHOLDER_ID,
    compiled_instances,
    compiled_values,
    for_values,
    instances_of,
    rows_prepared,
    values_at_once,
)
from submissions.models import Contest, Submission

# Where a moment and a cursor's position go in the kept statement: no row has them.
PLACEHOLDER_NOW = datetime(1901, 2, 3, 4, 5, 6, 789012, tzinfo=UTC)
PLACEHOLDER_WHEN = datetime(1902, 3, 4, 5, 6, 7, 890123, tzinfo=UTC)
PLACEHOLDER_AFTER_ID = PLACEHOLDER_ID - 1
RELATIONS = ("contest", "rules_version", "live_run")
# The numbered pages whose statements are kept (an OFFSET is written in the statement: each
# page its own); deeper ones are compiled at each read, a cursor's page kept whatever its depth.
KEPT_PAGES = 10


def _related(name: str):
    return Submission._meta.get_field(name).related_model


def _columns(entry_fields: tuple[str, ...]) -> tuple[list[str], dict[str, list[str]]]:
    """(the entry's attnames read, each relation's attnames read): of `entry_fields` (names as
    `only()` takes them: "contest__slug" reads the contest's slug), the relations read whole
    but the contest."""
    entry, related = ["contest_id"], {"contest": ["id"]}
    for name in entry_fields:
        if name.startswith("contest__"):
            related["contest"].append(name.removeprefix("contest__"))
            continue
        field = Submission._meta.get_field(name)
        if field.concrete:
            entry.append(field.attname)
    for name in ("rules_version", "live_run"):
        related[name] = [f.attname for f in _related(name)._meta.concrete_fields]
    ordered = [f.attname for f in Submission._meta.concrete_fields if f.attname in entry]
    return ordered, related


def viewer_kind(user) -> str:
    """What decides which entries `user` sees: "organizer" (every one), "entrant" (the
    published ones and their own) or "anyone" (the published ones)."""
    if is_organizer(user):
        return "organizer"
    if user is not None and user.is_authenticated:
        return "entrant"
    return "anyone"


def visible_placed(rows: QuerySet, kind: str) -> QuerySet:
    """`rows` filtered as `entries_visible_to` filters them for a viewer of `kind`, the moment
    and the entrant in their placeholders (PLACEHOLDER_NOW, PLACEHOLDER_ID)."""
    if kind == "organizer":
        return rows
    visible = published_q(PLACEHOLDER_NOW)
    if kind == "entrant":
        visible |= Q(owner_id=PLACEHOLDER_ID)
    return rows.filter(visible)


def _names(entry_fields: tuple[str, ...]) -> tuple[list[str], list[str], dict[str, list[str]]]:
    entry, related = _columns(entry_fields)
    names = [*entry, *(f"{name}__{column}" for name in RELATIONS for column in related[name])]
    return names, entry, related


def _read(kind: str, names: list[str], start: int, count: int, now, owner, after) -> QuerySet:
    rows = Submission.objects.all()
    if kind != "organizer":
        visible = published_q(now)
        if kind == "entrant":
            visible |= Q(owner_id=owner)
        rows = rows.filter(visible)
    newest = rows.order_by("-submitted_at", "-pk")
    if after is not None:
        newest = rows_after(newest, *after)
    return newest.values(*names)[start : start + count]


def rows_after(queryset: QuerySet, when, pk: int) -> QuerySet:
    """The rows after (`when`, `pk`) in newest-first order. On PostgreSQL a row comparison, which
    reads the newest-first index from that point (an OR of the two conditions was read from the
    top of it); elsewhere the same as two conditions (SQLite compares its stored text)."""
    if connection.vendor != "postgresql":
        return queryset.filter(Q(submitted_at__lt=when) | Q(submitted_at=when, pk__lt=pk))
    table = queryset.model._meta.db_table
    return queryset.extra(  # noqa: S610 - both values are parameters  # nosec B610
        where=[f'("{table}"."submitted_at", "{table}"."id") < (%s, %s)'], params=[when, pk]
    )


def newest_entries(
    user,
    entry_fields: tuple[str, ...],
    *,
    start: int = 0,
    count: int,
    after: tuple[datetime, int] | None = None,
    now: datetime | None = None,
) -> list[Submission]:
    """The `count` entries `user` may see (organizers every one; others the published ones and
    their own), newest first, from row `start` or after the cursor `after` ((time, id) of the
    last row read): each with the columns of `entry_fields` (as `only()` names them), its
    contest's, and its rules version and stream whole, in place as `select_related` puts them."""
    kind = viewer_kind(user)
    names, entry, related = _names(entry_fields)
    now = now or datetime.now(UTC)
    owner = getattr(user, "pk", None)
    if connection.vendor != "postgresql" or start >= KEPT_PAGES * count:
        # SQLite's moments are parameters as text, and a deep page's place is in its SQL (an
        # OFFSET): compiled at each read, not kept among the boards' statements.
        (rows,) = values_at_once([_read(kind, names, start, count, now, owner, after)])
        return instances_with(rows, connection.alias, entry, related)
    cursor = (PLACEHOLDER_WHEN, PLACEHOLDER_AFTER_ID) if after is not None else None
    statement = compiled_values(
        ("newest", kind, entry_fields, after is not None, start, count),
        lambda: _read(kind, names, start, count, PLACEHOLDER_NOW, PLACEHOLDER_ID, cursor),
    )
    values = {PLACEHOLDER_NOW: now, PLACEHOLDER_ID: owner}
    if after is not None:
        values.update({PLACEHOLDER_WHEN: after[0], PLACEHOLDER_AFTER_ID: after[1]})
    statement = for_values(statement, values)
    return instances_with(rows_prepared(statement), statement.using, entry, related)


def instances_with(
    rows: list,
    using: str,
    entry: list[str],
    related: dict[str, list[str]],
    relations: tuple[str, ...] = RELATIONS,
) -> list[Submission]:
    """Entries from `rows` (their `entry` columns, then each relation's `related` columns in
    the order of `relations`), each relation in place as `select_related` puts it."""
    width = len(entry)
    spans = []
    for name in relations:
        spans.append((name, _related(name), related[name], width, width + len(related[name])))
        width += len(related[name])
    # The entry's columns in the model's order, DEFERRED where not read, placed once for the
    # page (Model.from_db places them for each row, by a search of the names read).
    concrete = [f.attname for f in Submission._meta.concrete_fields]
    at = {name: position for position, name in enumerate(entry)}
    where = [at.get(name) for name in concrete]
    found = []
    for row in rows:
        values = [DEFERRED if position is None else row[position] for position in where]
        submission = Submission.from_db(using, concrete, values)
        cache = submission._state.fields_cache
        for name, model, names, first, last in spans:
            part = row[first:last]
            # A missing relation (no rules version, no stream) reads as NULLs: None, as
            # select_related leaves it.
            if part[0] is None:
                cache[name] = None
            else:
                cache[name] = model.from_db(using, names, part)
        found.append(submission)
    return found


def _published_statement(contests: int, fields: tuple[str, ...], limit: int):
    """The union of `published_results`' slices for `contests` published contests, compiled
    once per process with placeholders for each contest's id and publication (`_slot`)."""
    entry = [
        f.attname
        for f in Submission._meta.concrete_fields
        if f.attname in {*fields, "id", "contest_id"}
    ]

    def build() -> QuerySet:
        rows = Submission.objects.all()
        slices = []
        for number in range(contests):
            contest_id, at = _slot(number)
            mine = rows.filter(contest_id=contest_id)
            after = mine.filter(submitted_at__gt=at).annotate(published_at=F("submitted_at"))
            with_it = mine.filter(submitted_at__lte=at).annotate(
                published_at=Value(at, output_field=DateTimeField())
            )
            slices.append(
                after.order_by("-submitted_at", "-pk").values(*entry, "published_at")[:limit]
            )
            slices.append(with_it.order_by("-pk").values(*entry, "published_at")[:limit])
        return slices[0].union(*slices[1:], all=True)

    return compiled_values(("published", contests, fields, limit), build), entry


def _slot(number: int) -> tuple[int, datetime]:
    """The placeholders of the `number`th contest's id and publication."""
    return PLACEHOLDER_ID - 100 - number, PLACEHOLDER_NOW + timedelta(seconds=1 + number)


def published_newest(limit: int, now: datetime, fields: tuple[str, ...]) -> list[Submission]:
    """`selectors.published_results` on PostgreSQL: the published contests (their rows whole,
    each entry's contest) and their slices' union, statements compiled once per process and
    prepared, the union's rows made into instances with `published_at` as its annotation puts
    it."""
    contests_read = compiled_instances(
        ("published", "contests"),
        lambda: Contest.objects.filter(results_published_at__lte=PLACEHOLDER_NOW).order_by("pk"),
    )
    contests = instances_of(for_values(contests_read, {PLACEHOLDER_NOW: now}))
    if not contests:
        return []
    statement, entry = _published_statement(len(contests), fields, limit)
    values = {}
    for number, contest in enumerate(contests):
        contest_id, at = _slot(number)
        values.update({contest_id: contest.pk, at: contest.results_published_at})
    statement = for_values(statement, values)
    by_id = {contest.pk: contest for contest in contests}
    concrete = [f.attname for f in Submission._meta.concrete_fields]
    at = {name: position for position, name in enumerate(entry)}
    where = [at.get(name) for name in concrete]
    found = []
    for row in rows_prepared(statement):
        submission = Submission.from_db(
            statement.using,
            concrete,
            [DEFERRED if position is None else row[position] for position in where],
        )
        submission.published_at = row[len(entry)]
        submission._state.fields_cache["contest"] = by_id[submission.contest_id]
        found.append(submission)
    return sorted(found, key=lambda one: (one.published_at, one.pk), reverse=True)[:limit]
