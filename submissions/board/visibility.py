"""Who sees a contest's board, and what the public reads while it is under embargo."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.utils import timezone

from submissions.models import Contest

# Never needed by lists: the long text fields stay in the database.
# The entrant's long texts: no list shows them.
LONG_TEXTS = ("solution_description", "server_config")
LIST_DEFERRED = (*LONG_TEXTS, "verdicts", "parameters")


def published_q(now=None) -> Q:
    """Entries whose contest has published its results."""
    return Q(contest__results_published_at__lte=now or timezone.now())


def is_organizer(user) -> bool:
    """Staff: who sees every board, embargoed or not, and every entry (entries.selectors)."""
    return bool(user and user.is_authenticated and user.is_staff)


def contest_with_references() -> QuerySet[Contest]:
    """Contests whose reference rows the board reads once, however many times it asks."""
    return Contest.objects.prefetch_related("references")


def leaderboard_visible(contest: Contest, user) -> bool:
    return is_organizer(user) or contest.results_are_public()


def embargo_notice(contest: Contest) -> str:
    """What the public reads instead of an embargoed board."""
    if contest.results_published_at is None:
        return "Results are not published yet."
    local = timezone.localtime(contest.results_published_at, ZoneInfo(contest.timezone))
    return f"Results are published on {local:%-d %b %Y, %H:%M} {local.tzname()}."


def require_visible_board(contest: Contest, user) -> None:
    """A board under embargo answers 403 with the notice, wherever it is read (the board and
    its downloads, the host board and its API): the contest is public, its results not yet."""
    if not leaderboard_visible(contest, user):
        raise PermissionDenied(embargo_notice(contest))
