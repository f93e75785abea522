"""The data migration that says an estimate's stored basis in the site's one duration format
(issue 43): "measured 3.0 days to ..." becomes "measured 3d 0h 00m 00s to ...", re-rendered
from the entry's stored elapsed time, and the entry page, the board, the API and the CSV say
the same sentence."""

import csv
import importlib
import io
from pathlib import Path

import pytest
from django.apps import apps

from submissions.contests import ranks as contest_ranks
from submissions.models import Contest, Submission
from testing.factories import ContestFactory, SubmissionFactory

pytestmark = pytest.mark.django_db

# Found by its name's tail: the lead renumbers migrations at a merge.
(MIGRATION,) = Path(__file__).resolve().parents[2].glob("migrations/*_estimate_basis_durations.py")
said_once = importlib.import_module(f"submissions.migrations.{MIGRATION.stem}").said_once

OLD = "measured 3.0 days to 500,000,000 rows, then 500,000,000 rows at the terminal rate of "


def test_an_old_estimate_sentence_is_said_in_the_one_duration_format_everywhere(client):
    contest = ContestFactory(target_rows=1_000_000_000)
    entry = SubmissionFactory(
        contest=contest,
        rows=500_000_000,
        elapsed_seconds=3 * 86_400 + 125.4,
        estimated=True,
        estimate_basis=OLD + "2,200 rows/s",
    )
    measured = SubmissionFactory(contest=contest, estimated=False, estimate_basis="")
    odd = SubmissionFactory(contest=contest, estimated=True, estimate_basis="no terminal rate")
    contest_ranks.contest_board_changed(contest_id=contest.pk)
    version = Contest.objects.get(pk=contest.pk).board_version

    said_once(apps, None)

    basis = Submission.objects.get(pk=entry.pk).estimate_basis
    assert basis == (
        "measured 3d 0h 02m 05s to 500,000,000 rows, then 500,000,000 rows at the terminal "
        "rate of 2,200 rows/s"
    )
    assert Submission.objects.get(pk=measured.pk).estimate_basis == ""
    assert Submission.objects.get(pk=odd.pk).estimate_basis == "no terminal rate"
    # The board is made again: its cached pages and the open dataset reflect the new words.
    assert Contest.objects.get(pk=contest.pk).board_version > version
    # The entry page, the API and the board's CSV say the same sentence.
    assert f"estimate: {basis}" in client.get(entry.get_absolute_url()).content.decode()
    summary = client.get(f"/api/submissions/{entry.pk}/").json()["summary"]
    assert summary["estimate_basis"] == basis
    download = client.get(f"/contests/{contest.slug}/leaderboard.csv")
    table = csv.DictReader(io.StringIO(b"".join(download.streaming_content).decode()))
    assert basis in [row["estimate_basis"] for row in table]
    # Said once, the sentence stays as it is.
    said_once(apps, None)
    assert Submission.objects.get(pk=entry.pk).estimate_basis == basis
