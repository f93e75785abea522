"""A board's queries are compiled once per process (caches/compiled.py) and run again for every
board asked the same way: each contest still reads its own entries, a new entry shows at
once, and a contest moved to another track is ranked by that track."""

import pytest

from submissions.contests.ranks import contest_board_changed
from submissions.models import Contest, Workload
from testing.factories import ContestFactory, ReferenceResultFactory, SubmissionFactory

pytestmark = pytest.mark.django_db

DAY = 86_400.0
ASKED = ("", "?sort=-average_rate", "?engine=InnoDB", "?sort=engine&page_size=1&page=2")


def api_rows(client, contest, query: str = "") -> list[dict]:
    body = client.get(f"/api/contests/{contest.slug}/leaderboard/{query}").json()
    return [row for row in body["results"] if not row["reference"]]


def entrants(rows: list[dict]) -> list[str]:
    return [row["entrant"] for row in rows]


def two_contests() -> tuple[Contest, Contest]:
    first, second = ContestFactory(), ContestFactory()
    for contest, names in ((first, ("Ada", "Alan")), (second, ("Grace", "Edsger"))):
        for days, name in enumerate(names, start=1):
            SubmissionFactory(
                contest=contest, entrant_name=name, seconds_to_target=days * DAY,
                elapsed_seconds=days * DAY, average_rate=1_000.0 * days,
            )  # fmt: skip
        ReferenceResultFactory(contest=contest)
    return first, second


@pytest.mark.parametrize("query", ASKED)
def test_two_contests_asked_the_same_way_each_show_their_own_entries(client, query):
    first, second = two_contests()

    for _ in range(2):  # compiled by the first request, run again by the second
        assert set(entrants(api_rows(client, first, query))) <= {"Ada", "Alan"}
        assert set(entrants(api_rows(client, second, query))) <= {"Grace", "Edsger"}
    assert entrants(api_rows(client, second, "?sort=-average_rate")) == ["Edsger", "Grace"]


def test_a_board_asked_again_after_a_new_entry_shows_it_with_every_rank_moved(client):
    contest, _ = two_contests()
    assert [(row["entrant"], row["rank"]) for row in api_rows(client, contest)] == [
        ("Ada", 1),
        ("Alan", 2),
    ]

    SubmissionFactory(
        contest=contest, entrant_name="Barbara", seconds_to_target=DAY / 2, elapsed_seconds=DAY
    )

    assert [(row["entrant"], row["rank"]) for row in api_rows(client, contest)] == [
        ("Barbara", 1),
        ("Ada", 2),
        ("Alan", 3),
    ]
    by_rate = api_rows(client, contest, "?sort=-average_rate")
    assert {row["entrant"]: row["rank"] for row in by_rate} == {"Barbara": 1, "Ada": 2, "Alan": 3}


def test_a_contest_moved_to_another_track_is_ranked_by_it(client):
    contest = ContestFactory()
    # By the time to the target Ada is first; by the recovery time (crash recovery) Alan is.
    for name, days, recovery in (("Ada", 1, 9.0), ("Alan", 2, 1.0)):
        SubmissionFactory(
            contest=contest, entrant_name=name, seconds_to_target=days * DAY,
            elapsed_seconds=days * DAY, track_metric=recovery, track_class="r000000000200",
        )  # fmt: skip
    assert entrants(api_rows(client, contest)) == ["Ada", "Alan"]

    Contest.objects.filter(pk=contest.pk).update(workload=Workload.CRASH_RECOVERY)
    contest_board_changed(contest_id=contest.pk)

    assert entrants(api_rows(client, contest)) == ["Alan", "Ada"]
