"""Upload limits per user, the form, the API and the preview sharing one budget.

Two limits per hour: the entries a user stored in the last hour (counted in the database, so
the limit holds whether or not Redis is up), and a higher one for tries that stored nothing (a
log that did not parse, a duplicate, a preview), counted in the cache: a user fixing a log
after a validation error is not locked out by the errors, and a client hammering the endpoint
with junk still is. A try is counted before its log is read (`upload_try`), so one that never
ends (a worker killed) still counts; a stored entry gives its count back. When the cache is
down the tries are not counted (logged); the stored-entry limit still holds.

And two bounds on the logs read at once (`upload_slot`), both slots in the cache: one per user
(a 429), so one account never holds more than one web worker with upload work however many
requests it sends at once; and `LOG_READS_AT_ONCE` across the site (a 503), one fewer than the
web workers, so however many accounts send logs at once a page always finds a worker free."""

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

from submissions.caches.soft_cache import cache_count
from submissions.models import Submission

logger = logging.getLogger(__name__)

WINDOW_SECONDS = 3600


@dataclass(frozen=True)
class UploadRefusal:
    message: str
    retry_after: int
    # 429: this user's own limits; 503: the site is reading as many logs as it reads at once.
    status: int = 429


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


# -- the logs read at once: one per user, LOG_READS_AT_ONCE across the site ------------------

BUSY_MESSAGE = (
    "Your previous upload or preview is still being read: one log at a time per account "
    "(the per-user upload lock). Send this one again once that one is answered."
)
# A read ends within LOG_PARSE_SECONDS, and a log of the usual size (or a bomb reaching its
# limit) in a second or a few: a client told to wait the whole deadline would wait for nothing.
SITE_BUSY_RETRY_SECONDS = 2


def site_busy_message(reads: int) -> str:
    logs = "1 log" if reads == 1 else f"{reads} logs"
    return (
        f"The site is reading {logs} already, the most it reads at once (LOG_READS_AT_ONCE: "
        "uploads, form submissions and previews of every account together, so that pages "
        "keep a web worker free). Nothing was read or counted: send this one again in "
        f"{SITE_BUSY_RETRY_SECONDS} seconds."
    )


class _SlotsHere:
    """Slots held in this process, the fallback when the cache cannot be reached: then each
    process bounds its own threads' reads (the embedded cache of `make run` is already in its
    one process, and atomic there)."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self.users: set[int] = set()
        self.site_reads = 0

    def take_user(self, user_pk: int) -> bool:
        with self._guard:
            if user_pk in self.users:
                return False
            self.users.add(user_pk)
            return True

    def give_user(self, user_pk: int) -> None:
        with self._guard:
            self.users.discard(user_pk)

    def take_site(self, most: int) -> bool:
        with self._guard:
            if self.site_reads >= most:
                return False
            self.site_reads += 1
            return True

    def give_site(self) -> None:
        with self._guard:
            self.site_reads -= 1


_here = _SlotsHere()


def _slot_seconds() -> int:
    """How long a slot lives if its holder dies without releasing it (a killed worker): the
    parse's deadline and time to store what it read; a live holder releases it sooner."""
    return int(settings.LOG_PARSE_SECONDS) + 90


@dataclass
class UploadSlot:
    """A slot for reading a log; `refusal` (429 or 503) is set when none could be taken."""

    refusal: UploadRefusal | None = None


@contextmanager
def upload_slot(user) -> Iterator[UploadSlot]:
    """Hold the user's slot, then one of the site's, while the body runs; `slot.refusal`
    when either is taken: a 429 when another request of the same user is being read, a 503
    when the site reads LOG_READS_AT_ONCE logs already. Answered at once either way: a sync
    worker waiting for a slot would be one more worker pages cannot have. The user's slot is
    taken first, so one account's requests never hold a site slot even briefly."""
    with _user_slot(user) as (refusal, cache_reached):
        if refusal is not None:
            yield UploadSlot(refusal)
            return
        # A cache that just failed is not asked again: each try waits its socket timeout.
        with _site_slot(cache_reached) as refusal:
            yield UploadSlot(refusal)


@contextmanager
def _user_slot(user) -> Iterator[tuple[UploadRefusal | None, bool]]:
    """The refusal or None, and whether the cache answered. In Redis when the site has it
    (every worker sees it); with the embedded cache (`make run`: one process) in that
    process's memory, and the same when Redis is down, so a failing cache never blocks
    uploads."""
    key, token = f"upload-slot:{user.pk}", secrets.token_hex(8)
    try:
        taken, shared = cache.add(key, token, timeout=_slot_seconds()), True
    except Exception as error:  # Redis down: fall back to this process
        logger.warning("Cache unavailable (upload slot held in this process): %s", error)
        taken, shared = _here.take_user(user.pk), False
    if not taken:
        yield UploadRefusal(BUSY_MESSAGE, max(1, int(settings.LOG_PARSE_SECONDS))), shared
        return
    try:
        yield None, shared
    finally:
        if shared:
            _release(key, token)
        else:
            _here.give_user(user.pk)


@contextmanager
def _site_slot(use_cache: bool = True) -> Iterator[UploadRefusal | None]:
    """One of LOG_READS_AT_ONCE numbered keys (`log-read-slot:<n>`), each added atomically
    (Redis SET NX with an expiry), so any worker of any host sees them; with the embedded
    cache or Redis down, a count in this process."""
    most, token = settings.LOG_READS_AT_ONCE, secrets.token_hex(8)
    key, shared = None, False
    if use_cache:
        try:
            key, shared = _take_site_key(most, token), True
        except Exception as error:  # Redis down: fall back to this process
            logger.warning("Cache unavailable (log read slot held in this process): %s", error)
    taken = key is not None if shared else _here.take_site(most)
    if not taken:
        yield UploadRefusal(site_busy_message(most), SITE_BUSY_RETRY_SECONDS, status=503)
        return
    try:
        yield None
    finally:
        if shared:
            _release(key, token)
        else:
            _here.give_site()


def _take_site_key(most: int, token: str) -> str | None:
    for number in range(most):
        key = f"log-read-slot:{number}"
        if cache.add(key, token, timeout=_slot_seconds()):
            return key
    return None


def _release(key: str, token: str) -> None:
    try:
        # Only our own slot: one that expired and was taken by a later request stays.
        if cache.get(key) == token:
            cache.delete(key)
    except Exception as error:  # it expires on its own
        logger.warning("Cache unavailable (slot %s left to expire): %s", key, error)


def _refused_key(user) -> str:
    return f"uploads-refused:{user.pk}:{int(time.time()) // WINDOW_SECONDS}"


def _window_left() -> int:
    now = int(time.time())
    return (now // WINDOW_SECONDS + 1) * WINDOW_SECONDS - now


def _too_many(what: str, retry_after: int, note: str = "") -> str:
    minutes = max(1, round(retry_after / 60))
    return f"You have {what} this hour{note}, the most we take. Try again in {minutes} minutes."
