"""The budgets' counter on Redis (caches/soft_cache.count_one_more): one more at each count, a
time to live from the first, and counting goes on when Redis drops its connection."""

import uuid

import pytest
import redis
from django.core.cache import caches

from submissions.caches import soft_cache
from testing.worker import REDIS_TEST_URL


@pytest.fixture
def redis_cache(settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_TEST_URL,
        }
    }
    return redis.Redis.from_url(REDIS_TEST_URL)


def test_a_count_is_one_more_each_time_and_expires_after_its_window(redis_cache):
    key = f"test-count-{uuid.uuid4()}"

    counts = [soft_cache.count_one_more(key, 30) for _ in range(3)]

    assert counts == [1, 2, 3]
    assert 0 < redis_cache.ttl(caches["default"].make_and_validate_key(key)) <= 30


def test_counting_goes_on_when_redis_drops_the_connection(redis_cache):
    key = f"test-count-{uuid.uuid4()}"
    assert soft_cache.count_one_more(key, 30) == 1
    host, port = soft_cache._counters.counter.connection._sock.getsockname()[:2]

    assert redis_cache.client_kill(f"{host}:{port}")
    assert soft_cache.count_one_more(key, 30) == 2
