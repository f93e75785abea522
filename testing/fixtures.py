"""The fixtures every app's tests share (loaded for all of them by the root conftest): a contest,
an entrant and a full declaration; the C benchmark's binary, an organizer, a published entry
and the folders reruns and private servers work in."""

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from django.conf import settings

from submissions.entries import services
from testing.entries import DECLARED, upload
from testing.factories import ContestFactory, StaffFactory, UserFactory
from testing.logs import python_log


@pytest.fixture
def contest(db):
    return ContestFactory(target_rows=5_000_000)


@pytest.fixture
def entrant(db):
    return UserFactory()


@pytest.fixture
def declared():
    return dict(DECLARED)


@pytest.fixture
def iibench_binary() -> str:
    binary = Path(settings.IIBENCH_BINARY)
    if not os.access(binary, os.X_OK):
        pytest.fail(f"The C benchmark is not built at {binary}: run `make -C runner/iibench`.")
    return str(binary)


@pytest.fixture
def rerun_dir(settings, tmp_path):
    settings.RERUN_WORK_DIR = str(tmp_path / "reruns")
    return settings.RERUN_WORK_DIR


@pytest.fixture
def organizer(db):
    return StaffFactory()


@pytest.fixture
def entry(db):
    """A published entry whose claimed curve a fast machine reproduces easily: 5,000 rows/s."""
    contest = ContestFactory(target_rows=5_000_000, rerun_tolerance=0.25)
    log = python_log(rows=2_000_000, rates=[5_000.0, 5_000.0])
    return services.entry_create(
        contest=contest, owner=UserFactory(), declared=dict(DECLARED), log_file=upload(log)
    )


@pytest.fixture
def recovery_dir(settings):
    """A short folder for the private servers: their Unix sockets live there, and a socket's
    path must stay under about 100 characters (pytest's tmp_path is too deep)."""
    folder = tempfile.mkdtemp(prefix="rr-", dir="/tmp")
    # PostgreSQL runs as its own user and must reach its directory, as it does in /tmp.
    os.chmod(folder, 0o755)  # noqa: S103
    settings.RERUN_RECOVERY_DIR = folder
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
