"""Reads of the registry, with who may see what in one place."""

from __future__ import annotations

import copy

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import DateTimeField, F, Q, QuerySet, Subquery, Value
from django.http import Http404
from django.utils import timezone

from submissions.board.visibility import (  # answered here too, as they always were
    LIST_DEFERRED as LIST_DEFERRED,
)
from submissions.board.visibility import LONG_TEXTS as LONG_TEXTS
from submissions.board.visibility import is_organizer
from submissions.board.visibility import published_q as published_q
from submissions.caches.compiled import (
    PLACEHOLDER_ID,
    CompiledValues,
    compiled_instances,
    compiled_values,
    for_id,
    for_values,
    instances_of,
    read_now,
    reading_ahead,
    values_of,
)
from submissions.entries.newest import published_newest
from submissions.models import Contest, RuleVersion, Submission
from submissions.setup.cpus import cpu_variants_q


def entries_visible_to(user) -> QuerySet[Submission]:
    """Organizers see everything; others the published entries and their own drafts."""
    entries = Submission.objects.select_related("contest")
    if is_organizer(user):
        return entries
    visible = published_q()
    if user and user.is_authenticated:
        visible |= Q(owner=user)
    return entries.filter(visible)


def entry_visible(submission: Submission, user) -> bool:
    return (
        is_organizer(user)
        or submission.contest.results_are_public()
        or (user.is_authenticated and submission.owner_id == user.id)
    )


def seen_or_404(rows: QuerySet, pk: int, visible, what: str):
    """Row `pk` of `rows` when `visible(row)`; else the same 404 ("No such entry.") whether it
    is missing or hidden, so a hidden id answers exactly as a missing one and none can be
    counted."""
    row = rows.filter(pk=pk).first()
    if row is None or not visible(row):
        raise Http404(f"No such {what}.")
    return row


def entry_seen_by(user, pk: int, entries: QuerySet | None = None) -> Submission:
    """The entry as `user` may see it (seen_or_404): 404 for a missing or a hidden one."""
    rows = Submission.objects.select_related("contest") if entries is None else entries
    return seen_or_404(rows, pk, lambda entry: entry_visible(entry, user), "entry")


def entry_editable(submission: Submission, user) -> bool:
    return user.is_authenticated and submission.owner_id == user.id and submission.contest.is_open()


def entries_to_compare(*, ids: list[int], user) -> list[Submission]:
    """The entries among `ids` the user may see, in the order asked, with their plot previews
    (never the full series): their rows, previews and contests by three statements compiled
    once per process for as many entries (their ids in placeholders), sent at once (one round
    trip on PostgreSQL)."""
    unique = [pk for pk in dict.fromkeys(ids) if _an_id(pk)]
    if not unique:
        return []
    places = [PLACEHOLDER_ID - number for number in range(len(unique))]
    series = Submission._meta.get_field("series").related_model
    shown = tuple(f.attname for f in series._meta.concrete_fields if f.name != "columns")
    statements = [
        compiled_instances(
            ("compare", "entries", len(places)),
            lambda: Submission.objects.filter(pk__in=places).order_by(),
        ),
        compiled_values(
            ("compare", "series", len(places)),
            lambda: series.objects.filter(submission_id__in=places).order_by().values(*shown),
        ),
        compiled_instances(
            ("compare", "contests", len(places)),
            lambda: Contest.objects.filter(
                pk__in=Submission.objects.filter(pk__in=places).values("contest_id")
            ).order_by(),
        ),
    ]
    at = dict(zip(places, unique, strict=True))
    entries_read, series_read, contests_read = (for_values(each, at) for each in statements)
    with reading_ahead([]):
        read_now([entries_read, series_read, contests_read])
        entries = instances_of(entries_read)
        previews = {
            row["submission_id"]: series.from_db(
                series_read.using, list(shown), [row[name] for name in shown]
            )
            for row in values_of(series_read)
        }
        contests = {contest.pk: contest for contest in instances_of(contests_read)}
    by_id = {}
    for entry in entries:
        contest = contests.get(entry.contest_id)
        if contest is None:
            continue
        cache = entry._state.fields_cache
        # Each entry its own contest instance, as select_related gives each row its own.
        cache["contest"] = copy.copy(contest)
        cache["series"] = previews.get(entry.pk)
        if entry_visible(entry, user):
            by_id[entry.pk] = entry
    return [by_id[pk] for pk in ids if pk in by_id]


def published_results(limit: int, now=None, fields: tuple[str, ...] = ()) -> list[Submission]:
    """The `limit` entries of contests whose results are public, the most recently published
    first. An entry is published when its contest publishes, or when it arrives after that.
    Read per published contest as two index slices of at most `limit` (the entries that came
    after its publication, newest first; those it published, by number), merged by one
    UNION ALL: O(contests x limit), never a sort of every published entry. `fields`: the
    entries' columns to read (with the contest whole), else all but the long ones."""
    now = now or timezone.now()
    if fields and connection.vendor == "postgresql":
        return published_newest(limit, now, fields)
    published = Contest.objects.filter(results_published_at__lte=now)
    entries = Submission.objects.select_related("contest")
    entries = entries.only(*fields, "contest") if fields else entries.defer(*LIST_DEFERRED)
    slices = []
    for contest_id, at in published.values_list("pk", "results_published_at"):
        mine = entries.filter(contest_id=contest_id)
        after = mine.filter(submitted_at__gt=at).annotate(published_at=F("submitted_at"))
        with_it = mine.filter(submitted_at__lte=at).annotate(
            published_at=Value(at, output_field=DateTimeField())
        )
        slices.append(after.order_by("-submitted_at", "-pk")[:limit])
        slices.append(with_it.order_by("-pk")[:limit])
    if len(slices) > 1 and connection.features.supports_slicing_ordering_in_compound:
        merged = slices[0].union(*slices[1:], all=True)
    else:  # SQLite takes no LIMIT within a UNION: a query per slice
        merged = [entry for part in slices for entry in part]
    return sorted(merged, key=lambda entry: (entry.published_at, entry.pk), reverse=True)[:limit]


def user_entries(user) -> QuerySet[Submission]:
    return Submission.objects.filter(owner=user).select_related("contest").defer(*LIST_DEFERRED)


# What the search box reads, beyond the entrant's name (searched only where it is published).
SEARCHED_FIELDS = (
    "engine",
    "storage_engine",
    "cpu_model",
    "server_family",
    "server_version",
    "solution_description",
)
SEARCH_LIMIT = 100


def entries_matching(*, words: str, user) -> QuerySet[Submission]:
    """The entries this user may see whose entrant (where the name is published), engine, CPU,
    server or solution text match `words`, the newest first. On PostgreSQL the words are a web
    search (stemmed, quoted phrases, `-word`) against each entry's stored document
    (`search_document`, migration 0028: a generated tsvector with a GIN index), so a search
    reads its matches from the index, never a `to_tsvector` per row. Elsewhere (SQLite) every
    word must be found in some field: correct, but a scan of every entry a visitor may see."""
    entries = entries_visible_to(user).defer("server_config", "verdicts", "parameters")
    words = words.strip()
    if not words:
        return entries.none()
    if connection.vendor == "postgresql":
        return _full_text_matches(entries, words)
    for word in words.split():
        found = Q(entrant_name__icontains=word, publish=True)
        for name in SEARCHED_FIELDS:
            found |= Q(**{f"{name}__icontains": word})
        entries = entries.filter(found)
    return entries.order_by("-submitted_at", "-pk")


def _full_text_matches(entries: QuerySet[Submission], words: str) -> QuerySet[Submission]:
    # The document leaves an anonymous entrant's name out: it would tell who sent the entry.
    # Newest first rather than by relevance: ranking every match (ts_rank) costs the matches,
    # a common word's hundreds of thousands, where this order reads a page from an index.
    table = Submission._meta.db_table
    # The column is PostgreSQL's alone (the models do not know it); the words are a parameter.
    return entries.extra(  # noqa: S610  # nosec B610
        where=[f"\"{table}\".search_document @@ websearch_to_tsquery('english', %s)"],
        params=[words],
    ).order_by("-submitted_at", "-pk")


def entries_of_system(*, user, engine: str = "", cpu_model: str = "") -> QuerySet[Submission]:
    """The entries this user may see of one engine (normalised, setup.engines) or one CPU model,
    across contests, the newest first: read from an index on the name as `__iexact` compares it
    (migration 0028), a page at a time."""
    entries = entries_visible_to(user).defer(*LIST_DEFERRED)
    if engine:
        entries = entries.filter(engine__iexact=engine)
    if cpu_model:
        entries = entries.filter(cpu_variants_q(cpu_model))
    return entries.order_by("-submitted_at", "-pk")


def entry_page_statements(pk: int) -> list[CompiledValues]:
    """What an entry's page reads of it, as statements compiled once per process
    (caches/compiled.py `for_id`) to be sent at once: its row, its series' preview (not the
    series itself: megabytes for a long run), the rules it was judged under and its stream (the
    live wing's reverse one-to-one, which the trust tile reads)."""
    series = Submission._meta.get_field("series").related_model
    stream = Submission._meta.get_field("live_run").related_model
    shown = tuple(f.attname for f in series._meta.concrete_fields if f.name != "columns")
    statements = [
        compiled_instances(
            ("entry-page", "entry"), lambda: Submission.objects.filter(pk=PLACEHOLDER_ID)
        ),
        compiled_values(
            ("entry-page", "series"),
            lambda: series.objects.filter(submission_id=PLACEHOLDER_ID).order_by().values(*shown),
        ),
        compiled_instances(
            ("entry-page", "rules"),
            lambda: RuleVersion.objects.filter(
                pk=Subquery(
                    Submission.objects.filter(pk=PLACEHOLDER_ID).values("rules_version")[:1]
                )
            ).order_by(),
        ),
        compiled_instances(
            ("entry-page", "stream"),
            lambda: stream.objects.filter(submission_id=PLACEHOLDER_ID).order_by(),
        ),
    ]
    return [for_id(statement, pk) for statement in statements]


def entry_page_entry(statements: list[CompiledValues], contest: Contest) -> Submission | None:
    """The entry as `entry_page_statements` read it, with its contest (`contest`, read by the
    caller), series preview, rules and stream in place as `select_related` would put them;
    None when there is no such entry in that contest."""
    entry, series, rules, stream = statements[:4]
    return _entry_assembled(entry, series, rules, stream, contest)


def _entry_assembled(
    entry_read: CompiledValues,
    series_read: CompiledValues | None,
    rules_read: CompiledValues | None,
    stream_read: CompiledValues | None,
    contest: Contest | None,
) -> Submission | None:
    found = instances_of(entry_read)
    if not found or contest is None or found[0].contest_id != contest.pk:
        return None
    entry = found[0]
    cache = entry._state.fields_cache
    if series_read is not None:
        series = Submission._meta.get_field("series").related_model
        names = [f.attname for f in series._meta.concrete_fields if f.name != "columns"]
        previews = [
            series.from_db(series_read.using, names, [row[name] for name in names])
            for row in values_of(series_read)
        ]
        cache["series"] = previews[0] if previews else None
    cache["contest"] = contest
    if rules_read is not None:
        rules = instances_of(rules_read) if entry.rules_version_id else []
        cache["rules_version"] = rules[0] if rules else None
    if stream_read is not None:
        streams = instances_of(stream_read)
        cache["live_run"] = streams[0] if streams else None
    return entry


def entry_contest_statement(pk: int) -> CompiledValues:
    """The contest of entry `pk`, as a statement compiled once per process (`for_id`)."""
    statement = compiled_instances(
        ("entry-page", "contest"),
        lambda: Contest.objects.filter(
            pk=Subquery(Submission.objects.filter(pk=PLACEHOLDER_ID).values("contest_id")[:1])
        ).order_by(),
    )
    return for_id(statement, pk)


def _an_id(pk: int) -> bool:
    """Whether `pk` fits an id column (a bigint): the ORM matched nothing for one that does
    not, a statement sent with it as a parameter fails."""
    return -(2**63) <= pk < 2**63


def entry_seen_at_once(
    user,
    pk: int,
    *,
    preview: bool = False,
    related: bool = True,
    more: list[CompiledValues] = (),
) -> Submission:
    """The entry as `entry_seen_by` answers it (a 404 for a missing or a hidden one), with its
    contest, rules and stream in place (and its series' preview with `preview`) as
    `select_related` puts them (not with `related=False`): statements compiled once per
    process, sent at once with `more` (on PostgreSQL one round trip; the caller reads `more`
    within the same `reading_ahead` block). A read by the ORM compiled its join of four tables at every
    request, which cost more than running it."""
    if not _an_id(pk):  # no row has it; as a parameter of its own it would not be sent
        raise Http404("No such entry.")
    entry, series, rules, stream = entry_page_statements(pk)
    if not related:  # a page that shows neither: they stay unread (read if asked)
        rules = stream = None
    contest_read = entry_contest_statement(pk)
    wanted = [entry, series if preview else None, rules, stream, contest_read, *more]
    read_now([statement for statement in wanted if statement is not None])
    contests = instances_of(contest_read)
    submission = _entry_assembled(
        entry, series if preview else None, rules, stream, contests[0] if contests else None
    )
    if submission is None or not entry_visible(submission, user):
        raise Http404("No such entry.")
    return submission


def history_statement(pk: int) -> CompiledValues:
    """Entry `pk`'s history records, oldest first, as a statement compiled once per process
    (`for_id`): the records' users are read apart (`history_records`)."""
    statement = compiled_instances(
        ("entry-history", "records"),
        lambda: Submission.history.model._default_manager.filter(id=PLACEHOLDER_ID).order_by(
            "history_date"
        ),
    )
    return for_id(statement, pk)


def history_records(statement: CompiledValues) -> list:
    """The records `history_statement` read, each with its user in place as
    `select_related("history_user")` puts it (the users read in one query, when any)."""
    records = instances_of(statement)
    ids = {record.history_user_id for record in records if record.history_user_id is not None}
    users = get_user_model()._default_manager.in_bulk(ids) if ids else {}
    for record in records:
        record._state.fields_cache["history_user"] = users.get(record.history_user_id)
    return records
