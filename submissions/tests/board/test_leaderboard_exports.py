"""The leaderboard downloads: /contests/{slug}/leaderboard.csv and .json."""

import csv
import io
import json
from datetime import timedelta

import pytest
from django.utils import timezone

from submissions.contests import ranks as contest_ranks
from testing.factories import (
    ContestFactory,
    ReferenceResultFactory,
    StaffFactory,
    SubmissionFactory,
)

pytestmark = pytest.mark.django_db

DAY = 86_400.0


def download(client, contest, kind, query=""):
    return client.get(f"/contests/{contest.slug}/leaderboard.{kind}{query}")


def csv_rows(response) -> list[dict]:
    text = b"".join(response.streaming_content).decode()
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture
def contest():
    contest = ContestFactory()
    SubmissionFactory(
        contest=contest, entrant_name="Grace", elapsed_seconds=2 * DAY, terminal_rate=9_000,
        average_rate=5_787.04, verified=True,
    )  # fmt: skip
    SubmissionFactory(
        contest=contest, entrant_name="Hidden Name", email="hidden@example.org", publish=False,
        elapsed_seconds=3 * DAY, seconds_to_target=25 * DAY, estimated=True,
        estimate_basis="measured 3d 0h 00m 00s to 500,000,000 rows, then 500,000,000 rows at 2,200",
    )  # fmt: skip
    SubmissionFactory(
        contest=contest,
        entrant_name="Bulk",
        eligible=False,
        ineligible_reason="Bulk load detected.",
    )
    ReferenceResultFactory(
        contest=contest, label="Tokutek InnoDB (2008 contest)", elapsed_seconds=19.6 * DAY,
        terminal_rate=404, average_rate=590.5,
    )  # fmt: skip
    contest_ranks.contest_board_changed(contest_id=contest.pk)
    return contest


def test_it_downloads_the_board_as_csv_with_reference_rows_unranked(client, contest):
    response = download(client, contest, "csv")
    rows = csv_rows(response)

    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert f'filename="{contest.slug}-leaderboard.csv"' in response["Content-Disposition"]
    assert list(rows[0]) == [
        "rank", "id", "reference", "reference_id", "demo", "entrant", "storage_engine", "hardware",
        "elapsed_seconds", "elapsed", "seconds_to_target", "to_target", "estimated",
        "estimate_basis", "terminal_rate", "average_rate", "verified", "trust", "reason",
        "verification", "verification_outcome", "size_gib", "write_kb_per_row", "cpu_us_per_row", "machine_cpu_us_per_row",
    ]  # fmt: skip
    assert [(row["rank"], row["entrant"], row["reference"]) for row in rows] == [
        ("1", "Grace", "false"),
        ("", "Tokutek InnoDB (2008 contest)", "true"),
        ("2", "Anonymous entrant", "false"),
        ("", "Bulk", "false"),
    ]
    # An entry's id and a reference row's number are two columns, never one.
    reference = contest.references.get()
    assert [(row["id"], row["reference_id"]) for row in rows[:2]] == [
        (rows[0]["id"], ""),
        ("", str(reference.pk)),
    ]
    assert rows[0]["id"].isdigit()
    assert rows[0]["elapsed_seconds"] == "172800"
    assert rows[0]["elapsed"] == "2d 0h 00m 00s"
    assert rows[0]["to_target"] == "2d 0h 00m 00s"
    assert rows[0]["terminal_rate"] == "9000"
    assert rows[0]["average_rate"] == "5787.04"
    assert rows[0]["verified"] == "true"
    assert rows[2]["estimated"] == "true"
    # Measured and estimated are two columns: 3 days measured, 25 days estimated.
    assert rows[2]["elapsed_seconds"] == "259200"
    assert rows[2]["seconds_to_target"] == "2160000.0"
    assert rows[2]["to_target"] == "25d 0h 00m 00s (est.)"
    assert rows[2]["estimate_basis"].startswith("measured 3d 0h 00m 00s")
    assert rows[3]["reason"] == "Bulk load detected."


def test_it_never_puts_a_hidden_name_or_an_email_in_a_download(client, contest):
    csv_text = b"".join(download(client, contest, "csv").streaming_content)
    json_text = download(client, contest, "json").content

    for body in (csv_text, json_text):
        assert b"Hidden Name" not in body
        assert b"@example.org" not in body


def test_it_downloads_the_board_as_json_in_the_api_shape(client, contest):
    response = download(client, contest, "json")
    body = json.loads(response.content)

    assert f'filename="{contest.slug}-leaderboard.json"' in response["Content-Disposition"]
    assert body["contest"] == contest.slug
    assert body["count"] == 4
    reference = body["results"][1]
    assert reference["reference"] is True
    assert reference["rank"] is None
    assert reference["entrant"] == "Tokutek InnoDB (2008 contest)"
    assert reference["elapsed_seconds"] == 19.6 * DAY


def test_it_applies_the_page_filters_and_sort_to_downloads(client, contest):
    rows = csv_rows(download(client, contest, "csv", "?verified=1"))
    by_rate = json.loads(download(client, contest, "json", "?sort=-terminal_rate").content)

    assert [row["entrant"] for row in rows] == ["Grace"]
    assert by_rate["results"][0]["entrant"] == "Grace"
    assert by_rate["results"][1]["terminal_rate"] == 404


def test_it_refuses_downloads_of_an_embargoed_board_to_the_public(client):
    contest = ContestFactory(results_published_at=timezone.now() + timedelta(days=1))
    SubmissionFactory(contest=contest, entrant_name="Early Bird")

    for kind in ("csv", "json"):
        response = download(client, contest, kind)
        assert response.status_code == 403
        assert b"Results are published on" in response.content
        assert b"Early Bird" not in response.content


def test_it_lets_organizers_download_an_embargoed_board(client):
    contest = ContestFactory(results_published_at=None)
    SubmissionFactory(contest=contest, entrant_name="Early Bird")
    contest_ranks.contest_board_changed(contest_id=contest.pk)
    client.force_login(StaffFactory())

    assert [row["entrant"] for row in csv_rows(download(client, contest, "csv"))] == ["Early Bird"]


def test_it_neutralizes_names_a_spreadsheet_would_run_as_formulas(client):
    contest = ContestFactory()
    SubmissionFactory(contest=contest, entrant_name='=HYPERLINK("http://evil")')

    (row,) = csv_rows(download(client, contest, "csv"))

    assert row["entrant"] == '\'=HYPERLINK("http://evil")'
