"""Upload limits per user, the form, the API and the preview sharing one budget.

Two limits per hour: the entries a user stored in the last hour (counted in the database, so
the limit holds whether or not Redis is up), and a higher one for tries that stored nothing (a
log that did not parse, a duplicate, a preview), counted in the cache: a user fixing a log
after a validation error is not locked out by the errors, and a client hammering the endpoint
with junk still is. A try is counted before its log is read (`upload_try`), so one that never
ends (a worker killed) still counts; a stored entry gives its count back. When the cache is
down the tries are not counted (logged); the stored-entry limit still holds.

And one log read at a time per user (`upload_slot`): a lock in the cache, so one account never
holds more than one web worker with upload work however many requests it sends at once."""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from submissions.models import Submission
from submissions.web.soft_cache import cache_count

logger = logging.getLogger(__name__)

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
        return UploadRefusal(
            _too_many(f"sent {limit} refused logs", retry_after, " (previews count too)"),
            retry_after,
        )
    return None


def upload_try(user) -> None:
    """Count one try against the user's hour, before its log is read: a try whose worker dies
    mid-read still counts (`upload_stored` gives a stored entry's back)."""
    cache_count(_refused_key(user), WINDOW_SECONDS + 60, add=True)


def upload_stored(user) -> None:
    """Give back the try an entry that was stored counted: the database counts it now."""
    try:
        cache.decr(_refused_key(user))
    except ValueError:  # the hour turned (a new counter) or the counter expired
        pass
    except Exception as error:  # the cache is down: the try stays uncounted, as it was
        logger.warning("Cache unavailable (upload count not given back): %s", error)


# -- one log read at a time per user --------------------------------------------------------

BUSY_MESSAGE = (
    "Your previous upload or preview is still being read: one log at a time per account "
    "(the per-user upload lock). Send this one again once that one is answered."
)
# Taken when the cache cannot be reached: then the lock holds in this process only.
_held_here: set[int] = set()
_held_here_guard = threading.Lock()


def _slot_seconds() -> int:
    """How long a slot lives if its holder dies without releasing it (a killed worker): the
    parse's deadline and time to store what it read; a live holder releases it sooner."""
    return int(settings.LOG_PARSE_SECONDS) + 90


@dataclass
class UploadSlot:
    """The user's one slot for reading a log; `refusal` is set when another read holds it."""

    refusal: UploadRefusal | None = None


@contextmanager
def upload_slot(user) -> Iterator[UploadSlot]:
    """Hold the user's upload slot while the body runs; `slot.refusal` (a 429 to answer) when
    another request of the same user holds it. In Redis when the site has it (every worker
    sees it); with the embedded cache (`make run`: one process) in that process's memory,
    and the same when Redis is down, so a failing cache never blocks uploads."""
    key, token = f"upload-slot:{user.pk}", secrets.token_hex(8)
    try:
        taken, shared = cache.add(key, token, timeout=_slot_seconds()), True
    except Exception as error:  # Redis down: fall back to this process
        logger.warning("Cache unavailable (upload slot held in this process): %s", error)
        with _held_here_guard:
            taken, shared = user.pk not in _held_here, False
            _held_here.add(user.pk)
    if not taken:
        yield UploadSlot(UploadRefusal(BUSY_MESSAGE, max(1, int(settings.LOG_PARSE_SECONDS))))
        return
    try:
        yield UploadSlot()
    finally:
        _release(key, token, user.pk, shared)


def _release(key: str, token: str, user_pk: int, shared: bool) -> None:
    if not shared:
        with _held_here_guard:
            _held_here.discard(user_pk)
        return
    try:
        # Only our own slot: one that expired and was taken by a later request stays.
        if cache.get(key) == token:
            cache.delete(key)
    except Exception as error:  # it expires on its own
        logger.warning("Cache unavailable (upload slot left to expire): %s", error)


def _refused_key(user) -> str:
    return f"uploads-refused:{user.pk}:{int(time.time()) // WINDOW_SECONDS}"


def _window_left() -> int:
    now = int(time.time())
    return (now // WINDOW_SECONDS + 1) * WINDOW_SECONDS - now


def _too_many(what: str, retry_after: int, note: str = "") -> str:
    minutes = max(1, round(retry_after / 60))
    return f"You have {what} this hour{note}, the most we take. Try again in {minutes} minutes."
