"""/feeds/results.atom: newly published results, newest first, never an embargoed one."""

import xml.etree.ElementTree as ET
from datetime import timedelta

import pytest
from django.utils import timezone

from submissions.contests import ranks as contest_ranks
from submissions.measures.figures import format_exact_duration
from testing.factories import ContestFactory, SubmissionFactory

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"


def feed_entries(client) -> list[dict]:
    response = client.get("/feeds/results.atom")
    assert response["Content-Type"].startswith("application/atom+xml")
    root = ET.fromstring(response.content)  # noqa: S314 - our own feed, in a test
    return [
        {
            "title": entry.findtext(f"{ATOM}title"),
            "link": entry.find(f"{ATOM}link").get("href"),
            "author": entry.findtext(f"{ATOM}author/{ATOM}name"),
            "summary": entry.findtext(f"{ATOM}summary"),
        }
        for entry in root.iter(f"{ATOM}entry")
    ]


def test_it_lists_published_results_newest_first(client):
    now = timezone.now()
    older = ContestFactory(title="2008 contest", results_published_at=now - timedelta(days=30))
    newer = ContestFactory(title="Open contest", results_published_at=now - timedelta(days=1))
    first = SubmissionFactory(contest=older, submitted_at=now - timedelta(days=40))
    second = SubmissionFactory(contest=newer, submitted_at=now - timedelta(days=5))
    late = SubmissionFactory(contest=older, submitted_at=now - timedelta(hours=2))
    for contest in (older, newer):
        contest_ranks.contest_board_changed(contest_id=contest.pk)

    entries = feed_entries(client)

    assert [entry["link"] for entry in entries] == [
        f"http://testserver/entries/{late.pk}/",
        f"http://testserver/entries/{second.pk}/",
        f"http://testserver/entries/{first.pk}/",
    ]
    assert entries[1]["title"] == (
        f"Open contest: #{second.pk} InnoDB, rank 1, {format_exact_duration(19.6 * 86_400)} "
        "to 1,000,000,000 rows"
    )


def test_it_marks_demo_entries_and_keeps_measured_and_estimated_apart(client):
    contest = ContestFactory(title="Open contest")
    SubmissionFactory(
        contest=contest, demo="synthetic", elapsed_seconds=17.0, seconds_to_target=34_465.0,
        estimated=True, estimate_basis="measured 17.0 s to 1,000,000 rows, then 999,000,000 rows "
        "at the terminal rate of 29,000 rows/s", eligible=False, ineligible_reason="Too short.",
    )  # fmt: skip

    [entry] = feed_entries(client)

    assert "[synthetic]" in entry["title"]
    assert "Elapsed 17.0 s (measured)" in entry["summary"]
    assert "Time to target estimated: measured 17.0 s" in entry["summary"]


def test_it_leaves_out_contests_whose_results_are_not_published(client):
    SubmissionFactory(contest=ContestFactory(results_published_at=None))
    SubmissionFactory(
        contest=ContestFactory(results_published_at=timezone.now() + timedelta(days=1))
    )

    assert feed_entries(client) == []


def test_it_names_only_entrants_who_opted_in(client):
    SubmissionFactory(entrant_name="Secret Person", email="secret@example.org", publish=False)

    (entry,) = feed_entries(client)
    body = client.get("/feeds/results.atom").content

    assert entry["author"] == "Anonymous entrant"
    assert b"Secret Person" not in body
    assert b"secret@example.org" not in body


def test_it_says_why_an_entry_is_not_ranked(client):
    SubmissionFactory(eligible=False, ineligible_reason="Bulk load detected.")

    (entry,) = feed_entries(client)

    assert entry["title"].endswith("not ranked")
    assert "Bulk load detected." in entry["summary"]


def test_a_track_entry_is_announced_by_its_tracks_figures(client):
    contest = ContestFactory(title="Crash recovery", workload="crash_recovery")
    figures = {
        "insert_rate": 200.0,
        "rows_at_crash": 250_000,
        "recovery_seconds": 2.0,
        "engine": "TokuDB",
    }
    SubmissionFactory(
        contest=contest,
        storage_engine="TokuDB",
        track_figures=figures,
        track_metric=2.0,
        track_class="r000000000200",
    )
    contest_ranks.contest_board_changed(contest_id=contest.pk)

    (entry,) = feed_entries(client)

    assert entry["title"].endswith("TokuDB, rank 1, recovery time 2 s")
    assert "Recovery 2 s; Insert rate 200; Rows at crash 250,000." in entry["summary"]


def test_an_item_reads_nothing_of_its_entry_after_the_list(client):
    """The feed reads the columns its items show with the list (feeds.FEED_FIELDS): as many
    queries for six entries as for two, a column left out would be read once an item."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    contest = ContestFactory(results_published_at=timezone.now() - timedelta(days=1))
    tracked = ContestFactory(
        workload="crash_recovery", results_published_at=timezone.now() - timedelta(days=1)
    )
    counts = []
    for size in (2, 6):
        while contest.submissions.count() < size:
            SubmissionFactory(contest=contest, estimated=True, estimate_basis="the last 10%")
            SubmissionFactory(
                contest=tracked,
                track_figures={"insert_rate": 200.0, "rows_at_crash": 250_000},
                track_metric=2.0,
                track_class="r000000000200",
            )
        contest_ranks.contest_board_changed(contest_id=contest.pk)
        contest_ranks.contest_board_changed(contest_id=tracked.pk)
        client.get("/feeds/results.atom")
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/feeds/results.atom").status_code == 200
        counts.append(len(queries.captured_queries))
    assert counts[0] == counts[1]
