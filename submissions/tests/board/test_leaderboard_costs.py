"""The leaderboard's optional cost columns (?costs=1): size, KiB written and CPU per row,
sortable with the entries that have none last, and in the downloads."""

import csv
import io
import json

import pytest
from django.urls import reverse

from submissions.contests import ranks as contest_ranks
from testing.factories import ContestFactory, ReferenceResultFactory, SubmissionFactory
from testing.pages import board_rows, table_rows

pytestmark = pytest.mark.django_db

DAY = 86_400.0
GIB = 1024**3
ENTRANT, SIZE, WRITTEN, CPU = 1, 8, 9, 10


@pytest.fixture
def contest():
    contest = ContestFactory()
    SubmissionFactory(
        contest=contest, entrant_name="Big", seconds_to_target=2 * DAY, db_size_bytes=166 * GIB,
        write_kb_per_row=3.5, server_cpu_us_per_row=40.0, machine_cpu_us_per_row=61.25,
    )  # fmt: skip
    SubmissionFactory(
        contest=contest, entrant_name="Small", seconds_to_target=3 * DAY, db_size_bytes=12 * GIB,
        write_kb_per_row=0.25, server_cpu_us_per_row=17.5,
    )  # fmt: skip
    SubmissionFactory(contest=contest, entrant_name="Python log", seconds_to_target=4 * DAY)
    contest_ranks.contest_board_changed(contest_id=contest.pk)
    return contest


def board(client, contest, query=""):
    return client.get(reverse("contest_detail", args=[contest.slug]) + query)


def test_the_board_hides_the_cost_columns_until_asked(client, contest):
    response = board(client, contest)
    html = response.content.decode()
    assert "Size (GiB)" not in html
    assert "more columns (elapsed, costs)" in html
    assert len(board_rows(response)[0]) == 8


def test_asked_the_board_shows_each_entrys_costs_and_dashes_where_its_log_had_none(client, contest):
    rows = board_rows(board(client, contest, "?costs=1"))
    assert [row[ENTRANT] for row in rows] == ["Big", "Small", "Python log"]
    assert [row[SIZE : CPU + 1] for row in rows] == [
        ["166.00", "3.50", "40.00"],
        ["12.00", "0.25", "17.50"],
        ["—", "—", "—"],
    ]


@pytest.mark.parametrize(
    ("sort", "expected"),
    [
        ("size", ["Small", "Big", "Python log"]),
        ("-size", ["Big", "Small", "Python log"]),
        ("write_kb", ["Small", "Big", "Python log"]),
        ("-cpu", ["Big", "Small", "Python log"]),
    ],
)
def test_a_cost_column_sorts_with_the_unmeasured_entries_last(client, contest, sort, expected):
    response = board(client, contest, f"?sort={sort}")
    rows = board_rows(response)
    # Sorting by a cost shows the cost columns, and the overall rank stays.
    assert [row[ENTRANT] for row in rows] == expected
    assert "Size (GiB)" in response.content.decode()


def test_a_reference_rows_size_sorts_among_the_entries(client, contest):
    ReferenceResultFactory(contest=contest, label="Tokutek InnoDB 2008", size_gib=50.0)
    html = board(client, contest, "?sort=size").content.decode()
    labels = [row["cells"][2] for row in table_rows(html, "ranking")]
    assert labels == ["Small", "Tokutek InnoDB 2008", "Big", "Python log"]


def test_the_downloads_carry_the_cost_figures(client, contest):
    text = b"".join(
        client.get(f"/contests/{contest.slug}/leaderboard.csv").streaming_content
    ).decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [
        (
            r["entrant"],
            r["size_gib"],
            r["write_kb_per_row"],
            r["cpu_us_per_row"],
            r["machine_cpu_us_per_row"],
        )
        for r in rows
    ] == [
        ("Big", "166", "3.5", "40", "61.25"),
        # A format 2 log: no machine CPU, an empty cell rather than a zero.
        ("Small", "12", "0.25", "17.5", ""),
        ("Python log", "", "", "", ""),
    ]
    data = json.loads(client.get(f"/contests/{contest.slug}/leaderboard.json").content)
    assert data["results"][1]["size_gib"] == 12.0
    assert data["results"][2]["cpu_us_per_row"] is None
    assert data["results"][0]["machine_cpu_us_per_row"] == 61.25
    assert data["results"][1]["machine_cpu_us_per_row"] is None
    api = client.get(f"/api/contests/{contest.slug}/leaderboard/").json()
    assert api["results"][0]["write_kb_per_row"] == 3.5
    assert api["results"][0]["machine_cpu_us_per_row"] == 61.25
