"""`make run`'s demo data: a contest of every track, entries from the shipped logs (and declared
crash-recovery figures), ranked, with the seeds' reference rows; loading twice adds nothing."""

import json

import pytest

from submissions import tracks
from submissions.entries.demo import DEMO_LOGS, demo_entries, demo_load
from submissions.models import Contest, Submission

pytestmark = pytest.mark.django_db


def test_every_shipped_log_the_manifest_names_exists_and_is_documented():
    readme = (DEMO_LOGS / "README.md").read_text()
    for item in json.loads((DEMO_LOGS / "manifest.json").read_text()):
        if item["log"] is None:
            continue
        assert (DEMO_LOGS / item["log"]).is_file(), item["log"]
        assert item["log"] in readme, item["log"]


def test_the_demo_has_a_contest_of_every_track_with_ranked_entries_and_references():
    summary = demo_load()

    assert summary["entries_created"] == len(demo_entries())
    # Every track that has a demo contest (a new track may ship none yet).
    for workload in (track.workload for track in tracks.TRACKS.values() if track.demo_contest):
        contests = Contest.objects.filter(workload=workload)
        assert contests.exists(), workload
        entries = Submission.objects.filter(contest__in=contests)
        assert any(entry.rank == 1 for entry in entries), workload
        assert all(contest.references.exists() for contest in contests), workload
    # The shipped runs keep to their tracks' rules.
    track_entries = Submission.objects.exclude(contest__workload="classic")
    assert (
        list(track_entries.filter(eligible=False).values_list("ineligible_reason", flat=True)) == []
    )
    crash = Submission.objects.filter(contest__workload="crash_recovery")
    assert crash.filter(log_sha256="").exists() and crash.exclude(log_sha256="").exists()
    # Every demo entry carries its flag; the made-up 1B-row curves say they are synthetic.
    assert not Submission.objects.filter(demo="").exists()
    synthetic = Submission.objects.filter(demo="synthetic")
    assert sorted(synthetic.values_list("log_name", flat=True)) == [
        "synthetic-doctored-small-pool-3m.log",  # the demo claim's doctored copy (issue 29)
        "synthetic-fractal-tree-1b.log",
        "synthetic-innodb-plugin-1b.log",
        "synthetic-myisam-300m.log",
    ]


def test_loading_the_demo_again_adds_nothing():
    demo_load()

    assert demo_load()["entries_created"] == 0
