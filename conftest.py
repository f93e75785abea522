import pytest

# Fixtures shared across the apps' tests: the production-like server (gunicorn + whitenoise)
# for the browser and concurrency tests, and the permission table's world.
pytest_plugins = ["submissions.tests.server", "submissions.tests.access"]


@pytest.fixture(autouse=True)
def _media_in_tmp(settings, tmp_path):
    """Uploaded logs go to a per-test folder, never into var/."""
    settings.MEDIA_ROOT = str(tmp_path / "media")


@pytest.fixture(autouse=True)
def _empty_cache():
    """Each test starts with no cached pages and no upload counts."""
    from django.core.cache import cache

    cache.clear()
