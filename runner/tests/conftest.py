import os
import shutil
import tempfile
from pathlib import Path

import pytest
from django.conf import settings

from runner import services as rerun_services
from runner.host import this_host
from runner.models import RerunStatus
from runner.tests.worker import broker_settings, worker  # noqa: F401 - fixtures
from submissions import services
from submissions.models import Submission
from submissions.tests.conftest import DECLARED, upload
from submissions.tests.factories import (
    ContestFactory,
    StaffFactory,
    SubmissionFactory,
    UserFactory,
)


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


def run_to_end(entry, organizer, target: str, **size):
    """A rerun started, claimed and run to its end in this process, as a worker would."""
    run = rerun_services.rerun_start(
        submission=entry, target=target, requested_by=organizer, **size
    )
    assert rerun_services.rerun_claim(run_id=run.pk, worker="test")
    run = rerun_services.rerun_execute(run_id=run.pk)
    assert run.status == RerunStatus.SUCCEEDED, f"{run.message}\n{run.log[-3000:]}"
    return run


def track_entry(workload: str, figures: dict, rows: int = 1_000_000_000, **contest) -> Submission:
    """An entry of a track as the registry stores it: the figures the registry engineer's code
    computes, given here as they are (no log is parsed). It declares this machine's cores,
    memory and drive kind: the tracks' figures are absolute speeds, compared only on a host like
    the declared one."""
    contest.setdefault("rerun_tolerance", 0.25)
    host = this_host()
    return SubmissionFactory(
        contest=ContestFactory(workload=workload, **contest),
        track_figures=figures,
        rows=rows,
        cores=host["cores"],
        memory_gb=host["memory_gb"],
        drive_kind=host["drive_kind"],
    )
