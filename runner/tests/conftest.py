import os
from pathlib import Path

import pytest
from django.conf import settings

from runner.tests.worker import broker_settings, worker  # noqa: F401 - fixtures
from submissions import services
from submissions.tests.conftest import DECLARED, upload
from submissions.tests.factories import ContestFactory, StaffFactory, UserFactory


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
    from submissions.tests.logs import python_log

    log = python_log(rows=2_000_000, rates=[5_000.0, 5_000.0])
    return services.submission_create(
        contest=contest, owner=UserFactory(), declared=dict(DECLARED), log_file=upload(log)
    )
