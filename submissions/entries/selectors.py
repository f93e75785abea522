"""Reads of the registry, with who may see what in one place."""

from __future__ import annotations

from django.db.models import Q, QuerySet
from django.db.models.functions import Greatest
from django.utils import timezone

from submissions.models import Submission

# Never needed by lists: the long text fields stay in the database.
# The entrant's long texts: no list shows them.
LONG_TEXTS = ("solution_description", "server_config")
LIST_DEFERRED = (*LONG_TEXTS, "verdicts", "parameters")


def is_organizer(user) -> bool:
    return bool(user and user.is_authenticated and user.is_staff)


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
