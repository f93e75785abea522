"""Ranks are derived where they are read, never stored: every page of every sort, at any page
size, filtered or not, shows the ranks the pure ranking (measures.ranking.keyed_ranks) gives
the whole board, ties across page boundaries included, on boards with and without classes."""

import pytest

from submissions.models import Submission
from testing.boards import class_board, classic_board, every_row, expected_ranks
from testing.factories import SubmissionFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("make_board", [classic_board, class_board])
@pytest.mark.parametrize("query", ["", "&sort=-rank", "&sort=engine", "&sort=-terminal_rate"])
def test_every_page_shows_the_ranks_of_the_whole_board(client, make_board, query):
    contest = make_board()
    expected = expected_ranks(contest)
    if "terminal_rate" in query and contest.track.ranking.class_key:
        query = "&sort=-metric"

    whole = [row for row in every_row(client, contest, query, 1_000) if not row["reference"]]
    for page_size in (1, 2, 3, 5):
        paged = [row for row in every_row(client, contest, query, page_size)]
        paged = [row for row in paged if not row["reference"]]

        assert [row["id"] for row in paged] == [row["id"] for row in whole], page_size
        assert {row["id"]: row["rank"] for row in paged if row["rank"] is not None} == expected
    assert sum(row["rank"] is None for row in whole) == len(whole) - len(expected)


def test_a_filtered_board_shows_the_overall_ranks_on_every_page(client):
    contest = classic_board()
    expected = expected_ranks(contest)

    rows = every_row(client, contest, "&engine=TokuDB", 2)

    ranked = {row["id"]: row["rank"] for row in rows if row["rank"] is not None}
    assert ranked and all(expected[pk] == rank for pk, rank in ranked.items())
    assert {row["storage_engine"] for row in rows} == {"TokuDB"}


def test_the_rank_order_is_the_ranks_order(client):
    contest = classic_board()

    rows = [row for row in every_row(client, contest, "", 4) if row["rank"] is not None]

    assert [row["rank"] for row in rows] == sorted(row["rank"] for row in rows)
    assert [row["rank"] for row in rows][:3] == [1, 2, 2]  # 1 day at 500, then a tie


def test_the_counts_a_board_keeps_follow_every_change(client):
    contest = classic_board()
    url = f"/api/contests/{contest.slug}/leaderboard/?page_size=3"
    before = client.get(url).json()["count"]

    newcomer = SubmissionFactory(contest=contest, seconds_to_target=60.0, elapsed_seconds=60.0)
    after = client.get(url + "&page=2").json()

    assert after["count"] == before + 1
    assert every_row(client, contest, "", 3)[0]["id"] == newcomer.pk
    Submission.objects.filter(pk=newcomer.pk).delete()
    assert client.get(url + "&page=3").json()["count"] == before
