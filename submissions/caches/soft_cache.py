"""The cache (Redis in production) only saves work: when it is down, a read misses, a write is
skipped and a count is unknown, each with a logged warning, and the page or upload goes on."""

from __future__ import annotations

import hashlib
import logging
import threading
import time

from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError
from redis.exceptions import TimeoutError as RedisTimeoutError

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
COUNT_SHA = hashlib.sha1(COUNT_SCRIPT.encode()).hexdigest()  # noqa: S324 - Redis's script name  # nosec B324
EVALSHA_1 = b"*5\r\n$7\r\nEVALSHA\r\n$40\r\n%s\r\n$1\r\n1\r\n" % COUNT_SHA.encode()


class _Counter:
    """COUNT_SCRIPT sent on a Redis connection of the counter's own (made from the cache's
    pool settings): Django's get_client() makes a new client per call (~170 response callbacks
    set up each time), and the client's pool and retry wrappers cost as much Python again as
    the round trip; here a count is one command written and one integer read."""

    def __init__(self, backend: RedisCache) -> None:
        self.backend = backend
        self.connection = backend._cache.get_client(write=True).connection_pool.make_connection()

    def __call__(self, full_key: str, timeout: int) -> int:
        try:
            return self._evalsha(full_key, timeout)
        except NoScriptError:  # Redis restarted (its scripts are not kept): load it again
            self.connection.send_command("SCRIPT", "LOAD", COUNT_SCRIPT)
            self.connection.read_response()
        except (RedisConnectionError, RedisTimeoutError):
            # Once more on a new connection (Redis restarted, or the socket went stale), as
            # redis-py's client retries; a second failure goes to the caller.
            self.connection.disconnect()
        return self._evalsha(full_key, timeout)

    def _evalsha(self, full_key: str, timeout: int) -> int:
        # EVALSHA <sha> 1 <key> <timeout>, in the protocol's own words (redis-py's packing
        # of five arguments cost a fifth of the count).
        key, seconds = full_key.encode(), str(timeout).encode()
        packed = b"%s$%d\r\n%s\r\n$%d\r\n%s\r\n" % (
            EVALSHA_1, len(key), key, len(seconds), seconds
        )  # fmt: skip
        self.connection.send_packed_command([packed], check_health=False)
        return self.connection.read_response()


# One counter per thread: Django's caches are per thread too (the development server's
# threads come and go, and their counters with them).
_counters = threading.local()


def _counter(backend: RedisCache) -> _Counter:
    counter = getattr(_counters, "counter", None)
    if counter is None or counter.backend is not backend:
        counter = _counters.counter = _Counter(backend)
    return counter


def count_one_more(key: str, timeout: int) -> int:
    """The counter at `key` after counting one more. On Redis, one round trip (COUNT_SCRIPT,
    sent by its digest; loaded again after a restart of Redis). Elsewhere add()
    creates it atomically and incr() counts without a read-modify-write race; a counter that
    expired or was evicted between the two (incr() then raises ValueError) is made again.
    Cache errors go to the caller."""
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        return _counter(backend)(backend.make_and_validate_key(key), timeout)
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
