"""Adding a workload is one folder and one line in TRACKS: a toy track (testing/toy_track/) is
offered to organizers, ranks its entries on its board and plots them, with no other change."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from submissions import tracks
from submissions.entries import services
from submissions.models import Contest
from testing.entries import DECLARED
from testing.factories import ContestFactory, UserFactory
from testing.logs import python_log
from testing.pages import board_rows
from testing.toy_track import TOY

pytestmark = pytest.mark.django_db

OPEN = {
    "required_mysql_version": "",
    "preferred_os": "",
    "max_memory_gb": None,
    "require_direct_attached": False,
}


@pytest.fixture(autouse=True)
def toy_registered(monkeypatch):
    # The one line a newcomer adds to submissions/tracks/__init__.py.
    monkeypatch.setitem(tracks.TRACKS, TOY.workload, TOY)


def submit(contest, rates: list[float], name: str):
    return services.entry_create(
        contest=contest,
        owner=UserFactory(),
        declared={**DECLARED, "entrant_name": name},
        log_file=SimpleUploadedFile("run.log", python_log(rates=rates)),
    )


def test_the_toy_workload_is_offered_when_an_organizer_adds_a_contest(admin_client):
    html = admin_client.get("/admin/submissions/contest/add/").content.decode()
    assert '<option value="toy_peak">Toy: peak insert rate</option>' in html
    assert ("toy_peak", "Toy: peak insert rate") in Contest._meta.get_field("workload").choices


def test_the_toy_workload_ranks_its_entries_on_its_board_and_plots_them(client):
    contest = ContestFactory(workload="toy_peak", target_rows=5_000_000, **OPEN)
    contest.full_clean()  # the workload is a valid choice
    steady = submit(contest, [5_000.0] * 5, "Steady")
    bursty = submit(contest, [10_000.0, 2_000.0, 2_000.0, 2_000.0, 2_000.0], "Bursty")

    response = client.get(contest.get_absolute_url())
    html = response.content.decode()
    assert [(row[0], row[1], row[4]) for row in board_rows(response)] == [
        ("1", "Bursty", "10,000"),
        ("2", "Steady", "5,000"),
    ]
    assert "Peak rate" in html and "Ranked by the fastest report interval" in html

    page = client.get(steady.get_absolute_url()).content.decode()
    plot = json.loads(page.split('id="track-plot-data" type="application/json">')[1].split("<")[0])
    assert plot["kind"] == "rate_curve"
    assert plot["figures"] == {"peak_rate": 5_000.0, "rows": 5_000_000}
    assert "Peak rate (rows/s)" in page
    bursty.refresh_from_db()
    assert (bursty.rank, bursty.track_metric) == (1, 10_000.0)


@pytest.mark.slow
def test_the_tests_that_walk_every_track_pass_with_the_toy_track_added(tmp_path):
    """Nothing but the one line: the tests that go over every track (their purity, the demo,
    the seeds' reference rows, the contest form) pass with the toy in TRACKS."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    environment = {
        **os.environ,
        "TEST_DATABASE_URL": f"sqlite:///{tmp_path / 'toy.sqlite3'}",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    walked = [
        "submissions/tests/tracks/test_tracks.py",
        "submissions/tests/entries/test_demo.py",
        "submissions/tests/contests/test_reference_results.py",
        "submissions/tests/tracks/test_track_pages.py",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "--fast", "-p", "testing.toy_track_plugin",
         "-p", "no:cacheprovider", *walked],
        cwd=root, env=environment, capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
