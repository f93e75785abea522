"""The rendered boards' cache, keyed on the contest's board version."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.db import connection
from django.utils import timezone

from submissions.models import Contest
from submissions.selectors import is_organizer
from submissions.soft_cache import cache_get, cache_set

# Rendered boards are cached under the contest's board_version, which every change moves on in
# the same transaction (contest_ranks.contest_board_changed): a board is never served stale. What
# time changes (the deadline passing, the results being published) is handled by storing each
# page with the moment it stops being true.
BOARD_CACHE_SECONDS = 600


@dataclass(frozen=True)
class BoardStamp:
    contest_id: int
    version: int


def board_stamp(slug: str) -> BoardStamp | None:
    """The contest's id and board version, or None. Plain SQL: on a cached page this lookup is
    the only database work, and compiling the ORM query cost as much as running it."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, board_version FROM submissions_contest WHERE slug = %s", [slug])
        row = cursor.fetchone()
    return BoardStamp(*row) if row else None


def board_cache_key(kind: str, stamp: BoardStamp, request) -> str:
    """What a rendered board depends on besides time: the data's version, who looks
    (organizers see embargoed boards) and the URL."""
    audience = "organizer" if is_organizer(request.user) else "public"
    url = f"{request.get_host()}{request.get_full_path()}"
    digest = hashlib.sha256(url.encode()).hexdigest()[:32]
    return f"board:{kind}:{stamp.contest_id}:{stamp.version}:{audience}:{digest}"


def next_state_change(contest: Contest, now):
    """When the contest next closes or publishes its results, if that is still to come."""
    moments = [m for m in (contest.deadline, contest.results_published_at) if m and m > now]
    return min(moments, default=None)


def cached_board(key: str, stamp: BoardStamp, build, contest: Contest | None = None):
    """`build(contest)`'s value for this key, built at most once per board version and state.
    The contest is read only to build (pass it when the caller has it already)."""
    now = timezone.now()
    hit = cache_get(key)
    if hit is not None and (hit[0] is None or now < hit[0]):
        return hit[1]
    contest = contest or Contest.objects.get(pk=stamp.contest_id)
    value = build(contest)
    cache_set(key, (next_state_change(contest, now), value), BOARD_CACHE_SECONDS)
    return value
