import pytest

# Fixtures shared across the apps' tests: the production-like server (gunicorn + whitenoise)
# for the browser and concurrency tests, and the permission table's world.
pytest_plugins = [
    "testing.fixtures",
    "testing.worker",
    "testing.server",
    "testing.access",
]


@pytest.fixture(autouse=True)
def _media_in_tmp(settings, tmp_path):
    """Uploaded logs go to a per-test folder, never into var/."""
    settings.MEDIA_ROOT = str(tmp_path / "media")


@pytest.fixture(autouse=True)
def _empty_cache():
    """Each test starts with no cached pages and no upload counts."""
    from django.core.cache import cache

    from submissions.board.cache import forget_kept_boards
    from submissions.board.versions import kept_versions

    cache.clear()
    forget_kept_boards()
    # Each test's data is rolled back, which no notification reports: what a test's process
    # kept of the boards' versions is forgotten with it.
    kept_versions.forget()
    yield
    # And its listening connection closed: the test database is dropped at the end of the run,
    # which PostgreSQL refuses while a session is connected to it.
    kept_versions.close()


# `--pure`: the tests that need no database, server or worker (the log parser, the rules, the
# figures, the tracks and their rerun judges). `--fast` (`make test-fast`) adds the tests of
# the database paths that run on SQLite too: everything but a browser, the production server,
# a worker, the C benchmark, a private server or Redis, and what is marked `postgresql`.
NEEDS_DATABASE = {"db", "transactional_db", "django_db_setup", "client", "admin_client"}
NEEDS_SERVICES = {
    "live_site",
    "production_server",
    "worker",
    "broker_settings",
    "iibench_binary",
    "fault_stack",
    "redis_cache",
}
SERVICE_MARKERS = ("browser", "server", "worker", "postgresql", "slow")


def pytest_addoption(parser):
    parser.addoption(
        "--pure",
        action="store_true",
        help="only the tests that need no database, server or worker",
    )
    parser.addoption(
        "--fast",
        action="store_true",
        help="the pure tests and the database tests that run on SQLite (make test-fast)",
    )


def _needs_services(item) -> bool:
    fixtures = set(getattr(item, "fixturenames", ()))
    marked = any(item.get_closest_marker(name) for name in SERVICE_MARKERS)
    return marked or bool(NEEDS_SERVICES & fixtures)


def _needs_database(item) -> bool:
    fixtures = set(getattr(item, "fixturenames", ()))
    return bool(item.get_closest_marker("django_db")) or bool(NEEDS_DATABASE & fixtures)


def pytest_collection_modifyitems(config, items):
    pure, fast = config.getoption("--pure"), config.getoption("--fast")
    if not (pure or fast):
        return
    kept, dropped = [], []
    for item in items:
        needs = _needs_services(item) or (pure and _needs_database(item))
        (dropped if needs else kept).append(item)
    config.hook.pytest_deselected(items=dropped)
    items[:] = kept
