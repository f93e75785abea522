"""Upload limits per user per hour, the form and the API sharing one budget.

Two limits: the entries a user stored in the last hour (counted in the database, so the limit
holds whether or not Redis is up), and a higher one for refused attempts (a log that did not
parse, a duplicate), counted in the cache: a user fixing a log after a validation error is not
locked out by the errors, and a client hammering the endpoint with junk still is. When the
cache is down the refused attempts are not counted (logged); the stored-entry limit still holds."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from submissions.caches.soft_cache import cache_count
from submissions.models import Submission

WINDOW_SECONDS = 3600


@dataclass(frozen=True)
class UploadRefusal:
    message: str
    retry_after: int


def upload_refusal(user) -> UploadRefusal | None:
    """Why this user may not upload now, or None."""
    now = timezone.now()
    # Entries the demo loader gave this user (`make run`) are not uploads: the demo entrant
    # must be able to try the API the README shows right after the demo is loaded.
    recent = Submission.objects.filter(
        owner=user, demo="", submitted_at__gte=now - timedelta(seconds=WINDOW_SECONDS)
    ).order_by("submitted_at")
    limit = settings.UPLOADS_PER_HOUR
    if recent.count() >= limit:
        oldest = recent.values_list("submitted_at", flat=True)[0]
        retry_after = max(1, int((oldest - now).total_seconds()) + WINDOW_SECONDS)
        return UploadRefusal(_too_many(f"stored {limit} entries", retry_after), retry_after)
    refused = cache_count(_refused_key(user), WINDOW_SECONDS + 60, add=False)
    limit = settings.REFUSED_UPLOADS_PER_HOUR
    if refused is not None and refused >= limit:
        retry_after = _window_left()
        return UploadRefusal(_too_many(f"sent {limit} refused logs", retry_after), retry_after)
    return None


def upload_refused(user) -> None:
    """Count one refused attempt against the user's hour."""
    cache_count(_refused_key(user), WINDOW_SECONDS + 60, add=True)


def _refused_key(user) -> str:
    return f"uploads-refused:{user.pk}:{int(time.time()) // WINDOW_SECONDS}"


def _window_left() -> int:
    now = int(time.time())
    return (now // WINDOW_SECONDS + 1) * WINDOW_SECONDS - now


def _too_many(what: str, retry_after: int) -> str:
    minutes = max(1, round(retry_after / 60))
    return f"You have {what} this hour, the most we take. Try again in {minutes} minutes."
