"""Uploads per user per hour, counted in the cache so the form and the API share one budget
and every web process sees the same count (Redis in production)."""

import time

from django.conf import settings
from django.core.cache import cache

WINDOW_SECONDS = 3600


def upload_allowed(user) -> tuple[bool, int]:
    """Count one upload attempt. Returns whether it may go on and, if not, the seconds until
    the window ends (for Retry-After)."""
    now = int(time.time())
    window = now // WINDOW_SECONDS
    key = f"uploads:{user.pk}:{window}"
    # add() creates the counter atomically; incr() then counts without a read-modify-write race.
    cache.add(key, 0, timeout=WINDOW_SECONDS + 60)
    count = cache.incr(key)
    retry_after = (window + 1) * WINDOW_SECONDS - now
    return count <= settings.UPLOADS_PER_HOUR, retry_after


def too_many_message(retry_after: int) -> str:
    minutes = max(1, round(retry_after / 60))
    return (
        f"You have sent {settings.UPLOADS_PER_HOUR} logs this hour, the most we take. "
        f"Try again in {minutes} minutes."
    )
