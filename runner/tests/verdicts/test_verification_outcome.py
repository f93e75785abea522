"""The verification outcome, stored once and shown everywhere the entry shows (issues 40, 41, 43):
the demo InnoDB claim verified by three real 1/10 reruns of it (judged from the output they
stored, submissions/tests/fixtures/logs), then edited (its RAM, as issue 40 found), then verified
again; each step observed on the entry page, the board, the API, figures.json, the badge, the
Atom feed, the CSV and the open dataset."""

from __future__ import annotations

import csv
import io
from html import escape
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from runner.models import VerificationRun
from submissions.entries.demo import demo_load
from submissions.entries.services import entry_update
from submissions.models import Submission
from submissions.opendata import reads as opendata_reads
from testing.reruns import stored_run

pytestmark = pytest.mark.django_db

DEMO_ENTRY = "Demo: C iiBench on MariaDB, a 128 MB buffer pool"
TRUE_RERUNS = [f"iibench-c-mariadb-25mb-pool-300k-{n}.log" for n in (1, 2, 3)]


def verify(entry: Submission) -> VerificationRun:
    """An organizer's verification of the entry, judged by the classic judge."""
    run = stored_run(entry, TRUE_RERUNS, "not_reproduced", "Stored before it was judged.")
    # As a worker stores its host: described, and compared with the entry's.
    VerificationRun.objects.filter(pk=run.pk).update(host={**run.host, "cpu_model": "AMD EPYC"})
    call_command("rerun_rejudge", stdout=StringIO())
    run.refresh_from_db()
    assert run.verdict == "reproduced", run.message
    return run


def shows(text: str, page: str) -> bool:
    """The text is on the page, as HTML, SVG or XML escape it (or not)."""
    return text in page or escape(text) in page or text.replace("&", "&amp;") in page


def surfaces(client, entry: Submission) -> dict:
    """What a reader sees of the entry's verification on every output."""
    slug = entry.contest.slug
    page = client.get(entry.get_absolute_url()).content.decode()
    board = client.get(f"/contests/{slug}/").content.decode()
    row = next(line for line in board.split("<tr") if f'value="{entry.pk}"' in line)
    verified_board = client.get(f"/contests/{slug}/?verified=1").content.decode()
    api = client.get(f"/api/submissions/{entry.pk}/").json()
    board_api = client.get(f"/api/contests/{slug}/leaderboard/").json()["results"]
    streamed = client.get(f"/contests/{slug}/leaderboard.csv").streaming_content
    csv_rows = csv.DictReader(io.StringIO(b"".join(streamed).decode()))
    contests = opendata_reads.public_contests(timezone.now())
    dataset = [
        opendata_reads.entry_row(contest, values)
        for contest, values in opendata_reads.published_entries(contests, (0, 2**62))
    ]
    return {
        "header": page.split('class="entry-head"')[1].split("</header>")[0],
        "row": row,
        "in_verified_board": f'value="{entry.pk}"' in verified_board,
        "api": api,
        "board_api": next(found for found in board_api if found["id"] == entry.pk),
        "figures": client.get(f"/entries/{entry.pk}/figures.json").json(),
        "badge": client.get(f"/entries/{entry.pk}/badge.svg").content.decode(),
        "feed": client.get("/feeds/results.atom").content.decode(),
        "csv": next(found for found in csv_rows if found["id"] == str(entry.pk)),
        "dataset": next(found for found in dataset if found["id"] == entry.pk),
    }


def test_a_verified_entry_edited_is_verified_before_the_edit_everywhere_until_verified_again(
    client,
):
    demo_load()
    entry = Submission.objects.get(entrant_name=DEMO_ENTRY)
    run = verify(entry)
    headline = run.result["headline"]
    assert headline.startswith("Reproduced at 1/10 on mariadb: ")

    seen = surfaces(client, entry)
    # Verified: the headline in the entry's header, its board row, every export.
    assert 'class="badge verified big"' in seen["header"] and shows(headline, seen["header"])
    assert 'data-verification="reproduced"' in seen["row"] and seen["in_verified_board"]
    for found in (seen["api"], seen["board_api"], seen["figures"], seen["dataset"]):
        assert (found["verified"], found["verification"]) == (True, "reproduced")
        assert found["verification_outcome"] == headline
    assert (seen["csv"]["verified"], seen["csv"]["verification_outcome"]) == ("true", headline)
    # (The demo's 3,000,000-row claim is not eligible for the 1,000,000,000-row contest.)
    assert "rows/s · not eligible · verified<" in seen["badge"] and shows(headline, seen["badge"])
    assert shows(headline, seen["feed"])

    # The entrant changes the machine the claim was verified for: 16 GB of RAM becomes 4 GB.
    entry_update(
        submission=entry, declared={"memory_gb": 4.0}, by=entry.owner, enforce_deadline=False
    )
    entry.refresh_from_db()
    day = f"{entry.setup_edited_at.day} {entry.setup_edited_at:%b %Y}"
    before = f"Verified before an edit on {day}: the machine, server, engine or settings were"

    seen = surfaces(client, entry)
    assert 'class="badge verified big"' not in seen["header"]
    assert shows(before, seen["header"]) and shows(headline, seen["header"]), seen["header"]
    assert (
        'data-verification="before_edit"' in seen["row"]
        and "verified before an edit" in (seen["row"])
    )
    assert not seen["in_verified_board"]
    for found in (seen["api"], seen["board_api"], seen["figures"], seen["dataset"]):
        assert (found["verified"], found["verification"]) == (False, "before_edit")
        assert found["verification_outcome"].startswith(before)
    assert seen["api"]["trust"] == seen["figures"]["trust"] == "self-reported"
    assert seen["csv"]["verified"] == "false" and seen["csv"]["verification"] == "before_edit"
    assert "rows/s · not eligible · verified before an edit<" in seen["badge"]
    assert shows(before, seen["feed"])

    # Judging the old verification again does not make it speak for the new declaration.
    call_command("rerun_rejudge", stdout=StringIO())
    assert surfaces(client, entry)["api"]["verification"] == "before_edit"

    # An organizer verifies the entry as it is declared now: verified again.
    again = verify(entry)
    seen = surfaces(client, entry)
    assert 'class="badge verified big"' in seen["header"] and seen["in_verified_board"]
    assert seen["api"]["verified"] and seen["figures"]["verification"] == "reproduced"
    assert seen["api"]["verification_outcome"] == again.result["headline"]


def test_an_edit_of_the_description_leaves_the_verification_standing(client):
    demo_load()
    entry = Submission.objects.get(entrant_name=DEMO_ENTRY)
    verify(entry)

    entry_update(
        submission=entry,
        declared={"solution_description": "Stock settings, explained better."},
        by=entry.owner,
        enforce_deadline=False,
    )

    entry.refresh_from_db()
    assert entry.edited_at is not None and entry.setup_edited_at is None
    assert client.get(f"/api/submissions/{entry.pk}/").json()["verified"] is True
