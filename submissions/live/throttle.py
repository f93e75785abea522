"""Budgets of the live side, counted in the cache (Redis in production) so every web process
sees the same count: batches per run per minute, runs opened per user per hour."""

from __future__ import annotations

import time

from django.conf import settings
from redis.exceptions import RedisError

from submissions.caches.soft_cache import count_one_more


class BudgetUnavailable(Exception):
    """The cache that counts the budgets cannot be reached: the API answers 503, and a witness
    client retries later."""


def _count(key: str, window: int) -> tuple[int, int]:
    now = int(time.time())
    slot = now // window
    full_key = f"{key}:{slot}"
    try:
        return count_one_more(full_key, window + 60), (slot + 1) * window - now
    except (RedisError, OSError, ValueError) as error:
        raise BudgetUnavailable(str(error)) from error


def batch_allowed(run_id: int) -> tuple[bool, int]:
    count, retry_after = _count(f"live-batches:{run_id}", 60)
    return count <= settings.LIVE_BATCHES_PER_MINUTE, retry_after


def open_allowed(user_id: int) -> tuple[bool, int]:
    count, retry_after = _count(f"live-opens:{user_id}", 3600)
    return count <= settings.LIVE_RUNS_PER_HOUR, retry_after
