"""GET /api/contests/{slug}/leaderboard/: the board for programs, same rules as the page."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.authtoken.models import Token

from submissions.contests import ranks as contest_ranks
from testing.factories import (
    ContestFactory,
    ReferenceResultFactory,
    StaffFactory,
    SubmissionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

DAY = 86_400.0


def leaderboard(client, contest, query="", **headers):
    return client.get(f"/api/contests/{contest.slug}/leaderboard/{query}", **headers)


def test_it_returns_ranked_entries_then_the_unranked_with_reference_rows_placed(client):
    contest = ContestFactory()
    fast = SubmissionFactory(
        contest=contest, entrant_name="Fast", elapsed_seconds=2 * DAY, terminal_rate=9_000,
        average_rate=5_787.0, verified=True,
    )  # fmt: skip
    hidden = SubmissionFactory(contest=contest, publish=False, elapsed_seconds=30 * DAY)
    broken = SubmissionFactory(contest=contest, eligible=False, ineligible_reason="No indexes.")
    reference = ReferenceResultFactory(
        contest=contest, label="Tokutek InnoDB (2008 contest)", elapsed_seconds=19.6 * DAY
    )
    contest_ranks.contest_board_changed(contest_id=contest.pk)

    body = leaderboard(client, contest).json()

    assert body["count"] == 4
    assert [(row["rank"], row["id"], row["reference"]) for row in body["results"]] == [
        (1, fast.pk, False),
        (None, reference.pk, True),
        (2, hidden.pk, False),
        (None, broken.pk, False),
    ]
    assert body["results"][0] == {
        "rank": 1,
        "id": fast.pk,
        "entrant": "Fast",
        "storage_engine": "InnoDB",
        "elapsed_seconds": 2 * DAY,
        "seconds_to_target": 2 * DAY,
        "estimate_basis": "",
        "demo": "",
        "terminal_rate": 9_000.0,
        "average_rate": 5_787.0,
        "verified": True,
        "trust": "verified",
        "reference": False,
        "hardware": "2x Xeon X5460, 8 cores, 16 GB, 8x HDD, RAID 5",
        "estimated": False,
        "reason": "",
        "track_class": "",
        "track_metric": None,
        "track_figures": {},
        "verification": "reproduced",
        "verification_outcome": "Reproduced by an organizer's rerun.",
        "size_gib": None,
        "write_kb_per_row": None,
        "cpu_us_per_row": None,
        "machine_cpu_us_per_row": None,
    }
    assert body["results"][1]["trust"] is None  # a published result: nobody vouches here
    assert body["results"][2]["entrant"] == "Anonymous entrant"
    assert body["results"][2]["trust"] == "self-reported"
    assert body["results"][3]["reason"] == "No indexes."


def test_it_refuses_the_public_an_embargoed_board_with_the_publication_time(client):
    publication = timezone.now() + timedelta(days=2)
    contest = ContestFactory(results_published_at=publication, timezone="UTC")
    SubmissionFactory(contest=contest)

    response = leaderboard(client, contest)

    assert response.status_code == 403
    assert response.json() == {
        "detail": f"Results are published on {publication:%-d %b %Y, %H:%M} UTC."
    }


def test_it_shows_organizers_the_embargoed_board_with_a_token(client):
    contest = ContestFactory(results_published_at=None)
    SubmissionFactory(contest=contest)
    token = Token.objects.create(user=StaffFactory())

    response = leaderboard(client, contest, HTTP_AUTHORIZATION=f"Token {token.key}")

    assert response.status_code == 200
    assert response.json()["count"] == 1


def test_it_refuses_an_embargoed_board_to_a_signed_in_entrant(client):
    contest = ContestFactory(results_published_at=None)
    mine = SubmissionFactory(contest=contest)
    client.force_login(mine.owner)

    assert leaderboard(client, contest).status_code == 403


def test_it_sorts_filters_and_pages_like_the_page(client):
    contest = ContestFactory()
    for day, engine in ((1, "TokuDB"), (2, "InnoDB"), (3, "InnoDB"), (4, "InnoDB")):
        SubmissionFactory(
            contest=contest, storage_engine=engine, seconds_to_target=day * DAY,
            terminal_rate=1_000 * day,
        )  # fmt: skip
    contest_ranks.contest_board_changed(contest_id=contest.pk)

    body = leaderboard(
        client, contest, "?engine=innodb&sort=-terminal_rate&page_size=2&page=2"
    ).json()

    assert body["count"] == 3
    assert [row["rank"] for row in body["results"]] == [2]
    assert body["previous"].endswith("page=1")
    assert body["next"] is None


def test_it_caps_the_page_size_at_a_thousand(client):
    contest = ContestFactory()
    SubmissionFactory.create_batch(3, contest=contest, owner=UserFactory())

    body = leaderboard(client, contest, "?page_size=5000").json()

    assert body["count"] == 3
    assert len(body["results"]) == 3


def test_it_returns_an_empty_board_for_a_contest_without_entries(client):
    body = leaderboard(client, ContestFactory()).json()

    assert body == {"count": 0, "next": None, "previous": None, "results": []}


def test_it_answers_404_for_an_unknown_contest(client):
    assert client.get("/api/contests/nope/leaderboard/").status_code == 404


@pytest.mark.parametrize("entries", [5, 50])
def test_it_reads_the_board_in_the_same_few_queries_however_many_entries(
    client, django_assert_max_num_queries, entries
):
    contest = ContestFactory()
    SubmissionFactory.create_batch(entries, contest=contest, owner=UserFactory())
    ReferenceResultFactory.create_batch(2, contest=contest)
    contest_ranks.contest_board_changed(contest_id=contest.pk)

    # 6: a page sorted other than by rank reads its rows' ranks (derived, never stored) in
    # one query of its own; none grows with the entries.
    with django_assert_max_num_queries(6):
        body = leaderboard(client, contest, "?page_size=1000&sort=engine").json()

    assert len(body["results"]) == entries + 2
