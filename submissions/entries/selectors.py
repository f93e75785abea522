"""Reads of the registry, with who may see what in one place."""

from __future__ import annotations

from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector
from django.db import connection
from django.db.models import Case, F, Q, QuerySet, Value, When
from django.db.models.functions import Greatest
from django.utils import timezone

from submissions.board.visibility import is_organizer
from submissions.models import Submission

# Never needed by lists: the long text fields stay in the database.
# The entrant's long texts: no list shows them.
LONG_TEXTS = ("solution_description", "server_config")
LIST_DEFERRED = (*LONG_TEXTS, "verdicts", "parameters")


def published_q(now=None) -> Q:
    """Entries whose contest has published its results."""
    return Q(contest__results_published_at__lte=now or timezone.now())


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


def entry_editable(submission: Submission, user) -> bool:
    return user.is_authenticated and submission.owner_id == user.id and submission.contest.is_open()


def entries_to_compare(*, ids: list[int], user) -> list[Submission]:
    """The entries among `ids` the user may see, in the order asked, with their plot previews
    (never the full series)."""
    entries = (
        entries_visible_to(user)
        .filter(pk__in=ids)
        .select_related("series")
        .defer(*LIST_DEFERRED, "series__columns")
    )
    by_id = {entry.pk: entry for entry in entries}
    return [by_id[pk] for pk in ids if pk in by_id]


def published_results(now=None) -> QuerySet[Submission]:
    """Entries of contests whose results are public, the most recently published first. An
    entry is published when its contest publishes, or when it arrives after that."""
    return (
        Submission.objects.filter(published_q(now))
        .select_related("contest")
        .defer(*LIST_DEFERRED)
        .annotate(published_at=Greatest("contest__results_published_at", "submitted_at"))
        .order_by("-published_at", "-pk")
    )


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
    server or solution text match `words`, the best matches first: PostgreSQL's full-text search
    where the database is PostgreSQL, every word found in some field elsewhere (SQLite)."""
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
    # An anonymous entrant's name is not searchable: it would tell who sent the entry.
    published_name = Case(When(publish=True, then=F("entrant_name")), default=Value(""))
    vector = (
        SearchVector(published_name, weight="A", config="english")
        + SearchVector(*SEARCHED_FIELDS[:-1], weight="A", config="english")
        + SearchVector("solution_description", weight="B", config="english")
    )
    query = SearchQuery(words, search_type="websearch", config="english")
    return (
        entries.annotate(search=vector, relevance=SearchRank(vector, query))
        .filter(search=query)
        .order_by("-relevance", "-submitted_at", "-pk")
    )


def entries_of_system(*, user, engine: str = "", cpu_model: str = "") -> QuerySet[Submission]:
    """The entries this user may see of one engine (normalised, setup.engines) or one CPU model,
    across contests, the oldest first."""
    entries = entries_visible_to(user).defer(*LIST_DEFERRED)
    if engine:
        entries = entries.filter(engine__iexact=engine)
    if cpu_model:
        entries = entries.filter(cpu_model__iexact=cpu_model.strip())
    return entries.order_by("submitted_at", "pk")
