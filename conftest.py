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

    from submissions.board.cache import forget_kept_boards

    cache.clear()
    forget_kept_boards()


# `make test-fast`: the tests that need no database, server or worker (the log parser, the
# rules, the figures, the tracks and their rerun judges), in seconds.
NEEDS_SERVICES = {
    "db",
    "transactional_db",
    "django_db_setup",
    "client",
    "admin_client",
    "live_site",
}


def pytest_addoption(parser):
    parser.addoption(
        "--pure",
        action="store_true",
        help="only the tests that need no database, server or worker (make test-fast)",
    )


def pytest_collection_modifyitems(config, items):
    if not config.getoption("--pure"):
        return
    kept, dropped = [], []
    for item in items:
        needs = any(item.get_closest_marker(name) for name in ("django_db", "browser", "worker"))
        needs = needs or bool(NEEDS_SERVICES & set(getattr(item, "fixturenames", ())))
        (dropped if needs else kept).append(item)
    config.hook.pytest_deselected(items=dropped)
    items[:] = kept
