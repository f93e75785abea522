"""A board's pages reach a bounded depth and a filtered board is counted only as far as its
page (issue 44): a page is read with an OFFSET (every row before it read) and a filter
matching most of a million entries must not count them all. Past the depth the page says where
the rest is, and the API's count of a filtered board not counted to its end is null, as the
registry list's is. The depth is made
small here (DEEPEST_ROW) so a few dozen entries go past it."""

import re

import pytest
from django.db import connection  # noqa: F401 - the skipif's condition reads it
from django.test import Client

from submissions.board import query as board_query
from submissions.board import reads
from submissions.contests.ranks import contest_board_changed
from submissions.models import Submission
from testing.factories import ContestFactory, SubmissionFactory

pytestmark = pytest.mark.django_db

DEPTH = 40
ENTRIES = 70


@pytest.fixture
def board(monkeypatch):
    monkeypatch.setattr(board_query, "DEEPEST_ROW", DEPTH)
    monkeypatch.setattr(reads, "DEEPEST_ROW", DEPTH)
    contest = ContestFactory(slug="deep")
    template = SubmissionFactory(contest=contest, engine="InnoDB", storage_engine="InnoDB")
    fields = [f for f in Submission._meta.concrete_fields if not f.primary_key]
    copies = []
    for number in range(1, ENTRIES):
        values = {field.attname: getattr(template, field.attname) for field in fields}
        values.update(
            log_sha256=f"{number:064x}",
            seconds_to_target=template.seconds_to_target + number,
            entrant_name=f"Entrant {number:03d}",
            publish=True,
        )
        copies.append(Submission(**values))
    Submission.objects.bulk_create(copies)
    contest_board_changed(contest_id=contest.pk)
    return contest


def ranks_shown(html: str) -> list[int]:
    return [
        int(rank)
        for rank in re.findall(
            r"aria-label=\"Compare entry #\d+\"></td><td class=\"num\">(\d+)<", html
        )
    ]


def test_a_filtered_board_says_more_follow_and_pages_to_the_depth(board):
    """A filtered page is counted as far as it reaches and one row more: it says a next page
    follows, not how many; the deepest page says the rest is in the downloads."""
    client = Client()
    first = client.get("/contests/deep/?engine=innodb&page_size=10").content.decode()
    assert "page 1 · rows 1\u201310, more follow" in first and "next →" in first
    assert "Pages go to row" not in first and " of 4 " not in first
    last = client.get("/contests/deep/?engine=innodb&page_size=10&page=4").content.decode()
    # The deepest page holds the rows at ranks 31-40, in order; a deeper page shows it too.
    assert ranks_shown(last) == list(range(31, 41))
    assert f"Pages go to row {DEPTH}" in last and "next →" not in last
    deeper = client.get("/contests/deep/?engine=innodb&page_size=10&page=9").content.decode()
    assert ranks_shown(deeper) == list(range(31, 41)) and "next →" not in deeper


def test_a_filtered_board_is_counted_once_its_pages_reach_the_end(board):
    for number in range(15):
        SubmissionFactory(
            contest=board,
            engine="TokuDB",
            storage_engine="TokuDB",
            seconds_to_target=1_000_000.0 + number,
            log_sha256=f"{number:064x}"[::-1],
        )
    client = Client()
    first = client.get("/contests/deep/?engine=tokudb&page_size=10").content.decode()
    assert "page 1 · rows 1\u201310, more follow" in first
    second = client.get("/contests/deep/?engine=tokudb&page_size=10&page=2").content.decode()
    assert "page 2 of 2 · 15 rows" in second and "next →" not in second
    assert len(ranks_shown(second)) == 5
    api = client.get("/api/contests/deep/leaderboard/?engine=tokudb&page_size=10")
    assert api.json()["count"] is None and api.json()["next"].endswith("page=2")
    api = client.get("/api/contests/deep/leaderboard/?engine=tokudb&page_size=10&page=2")
    assert api.json()["count"] == 15 and api.json()["next"] is None


# SQLite keeps no tally (board/order.py tally_kept): its whole boards are counted as filtered ones.
POSTGRESQL_TALLY = pytest.mark.skipif(
    "connection.vendor != 'postgresql'", reason="the tally's whole counts (PostgreSQL)"
)


@POSTGRESQL_TALLY
def test_a_whole_board_counts_exactly_but_pages_only_to_the_depth(board):
    html = Client().get("/contests/deep/?page_size=10&page=5").content.decode()
    assert f"page 4 of 4 · {ENTRIES} rows" in html and f"Pages go to row {DEPTH}" in html
    assert ranks_shown(html) == list(range(31, 41))


def test_a_filtered_board_that_fits_is_counted_exactly_with_no_word_of_depth(board):
    SubmissionFactory(contest=board, engine="TokuDB", storage_engine="TokuDB")
    html = Client().get("/contests/deep/?engine=tokudb").content.decode()
    assert "Pages go to row" not in html and len(ranks_shown(html)) == 1


@POSTGRESQL_TALLY
def test_the_api_says_a_filtered_count_is_unknown_past_the_depth(board):
    client = Client()
    filtered = client.get("/api/contests/deep/leaderboard/?engine=innodb&page_size=10").json()
    assert filtered["count"] is None and filtered["next"].endswith("page=2")
    assert [row["rank"] for row in filtered["results"]] == list(range(1, 11))
    whole = client.get("/api/contests/deep/leaderboard/?page_size=10&page=4").json()
    assert whole["count"] == ENTRIES and whole["next"] is None
