"""The cache (Redis in production) only saves work: when it is down, a read misses, a write is
skipped and a count is unknown, each with a logged warning, and the page or upload goes on."""

from __future__ import annotations

import logging
import time

from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache

logger = logging.getLogger(__name__)

# One warning per this many seconds per process: a Redis outage must not flood the log with a
# line per request.
WARN_EVERY_SECONDS = 30
_last_warning = {"at": 0.0}


def _warn(action: str, error: Exception) -> None:
    now = time.monotonic()
    if now - _last_warning["at"] >= WARN_EVERY_SECONDS:
        _last_warning["at"] = now
        logger.warning("Cache unavailable (%s skipped): %s", action, error)


def cache_get(key: str):
    """The cached value, or None when absent or when the cache cannot be reached."""
    try:
        return cache.get(key)
    except Exception as error:  # any backend's connection error is a miss
        _warn("read", error)
        return None


def cache_set(key: str, value, timeout: int) -> None:
    try:
        cache.set(key, value, timeout)
    except Exception as error:  # a write that fails is only work redone later
        _warn("write", error)


# Count one more, and give the counter its time to live when this made it: one command that
# runs alone (Redis runs a script atomically), so the counter can never be left without one
# nor expire between the two; one reply to read (a MULTI/SET NX/INCR/EXEC pipeline had four).
COUNT_SCRIPT = """
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return count
"""
# backend id -> (the backend, COUNT_SCRIPT bound to a client of its pool): Django's
# get_client() makes a new client object per call (~170 response callbacks set up each time,
# more than the round trip's own Python); the pool under it is the backend's, kept.
_count_scripts: dict[int, tuple] = {}


def _count_script(backend: RedisCache):
    kept = _count_scripts.get(id(backend))
    if kept is None or kept[0] is not backend:
        client = backend._cache.get_client(write=True)
        kept = _count_scripts[id(backend)] = (backend, client.register_script(COUNT_SCRIPT))
    return kept[1]


def count_one_more(key: str, timeout: int) -> int:
    """The counter at `key` after counting one more. On Redis, one round trip (COUNT_SCRIPT,
    sent by its digest; loaded again by redis-py after a restart of Redis). Elsewhere add()
    creates it atomically and incr() counts without a read-modify-write race; a counter that
    expired or was evicted between the two (incr() then raises ValueError) is made again.
    Cache errors go to the caller."""
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        full_key = backend.make_and_validate_key(key)
        return _count_script(backend)(keys=[full_key], args=[timeout])
    for _ in range(3):
        cache.add(key, 0, timeout=timeout)
        try:
            return cache.incr(key)
        except ValueError:
            continue
    raise ValueError(f"the counter {key} vanished three times between add() and incr()")


def cache_count(key: str, timeout: int, *, add: bool) -> int | None:
    """The counter at `key`, first counting one more when `add`; None when the cache cannot be
    reached."""
    try:
        if not add:
            return int(cache.get(key) or 0)
        return count_one_more(key, timeout)
    except Exception as error:
        _warn("count", error)
        return None
