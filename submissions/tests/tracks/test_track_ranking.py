"""Ranks on track contests: each track's metric and direction, its classes,
ties; and the board's order with the seeds' reference rows placed by the same metric."""

import pytest
from django.urls import reverse

from submissions.contests import ranks as contest_ranks
from submissions.contests import reference_rows
from submissions.measures.ranking import MetricStanding, class_ranks
from submissions.models import Submission, Workload
from testing.factories import ContestFactory, SubmissionFactory
from testing.tracks import crash, pk_figures

pytestmark = pytest.mark.django_db


def ranks_of(*entries) -> list[int | None]:
    return [Submission.objects.get(pk=entry.pk).rank for entry in entries]


def entry(contest, metric, track_class="", **fields):
    return SubmissionFactory(
        contest=contest, track_metric=metric, track_class=track_class, **fields
    )


def test_it_ranks_fifo_entries_by_terminal_insert_rate_highest_first():
    contest = ContestFactory(workload=Workload.FIFO)
    innodb = entry(contest, 204.0, seconds_to_target=DAY_1)
    tokudb = entry(contest, 5_088.0, seconds_to_target=DAY_1 * 30)
    fast_but_broken = entry(contest, 9_999.0, eligible=False)

    contest_ranks.contest_board_changed(contest_id=contest.pk)

    assert ranks_of(tokudb, innodb, fast_but_broken) == [1, 2, None]


def test_it_ranks_query_times_and_recovery_times_lowest_first_sharing_ties():
    contest = ContestFactory(workload=Workload.QUERY)
    slow, fast, tied = entry(contest, 17.7), entry(contest, 7.2), entry(contest, 7.2)
    no_time = entry(contest, None)

    contest_ranks.contest_board_changed(contest_id=contest.pk)

    assert ranks_of(fast, tied, slow, no_time) == [1, 1, 3, None]


def test_it_ranks_bulk_loads_within_their_class():
    contest = ContestFactory(workload=Workload.BULK_LOAD)
    small_slow = entry(contest, 27_000.0, "k001l0000064")
    small_fast = entry(contest, 142_000.0, "k001l0000064")
    wide_slow = entry(contest, 5_000.0, "k004l0000256")

    contest_ranks.contest_board_changed(contest_id=contest.pk)

    assert ranks_of(small_fast, small_slow, wide_slow) == [1, 2, 1]


def test_it_ranks_crash_recoveries_within_their_insert_rate_class():
    contest = ContestFactory(workload=Workload.CRASH_RECOVERY)
    innodb = entry(contest, 18_505.0, "r000000000100c000000100000000")
    tokudb = entry(contest, 2.0, "r000000000100c000000100000000")
    flat_out = entry(contest, 501.0, "r000000010000c000000100000000")

    contest_ranks.contest_board_changed(contest_id=contest.pk)

    assert ranks_of(tokudb, innodb, flat_out) == [1, 2, 1]


def test_class_ranks_skip_after_ties_within_a_class_only():
    standings = [
        MetricStanding(1, 10.0, "a"),
        MetricStanding(2, 10.0, "a"),
        MetricStanding(3, 5.0, "a"),
        MetricStanding(4, 1.0, "b"),
    ]

    assert class_ranks(standings, descending=True) == {1: 1, 2: 1, 3: 3, 4: 1}


def test_the_key_type_board_lists_entries_by_ratio_with_the_seeds_tests_among_them(client):
    contest = ContestFactory(workload=Workload.PK_TYPES)
    reference_rows.reference_results_create(contest=contest)
    good = entry(contest, 0.5, entrant_name="Ordered keys win", track_figures=pk_figures(0.5))
    poor = entry(contest, 1.2, entrant_name="Ordered keys lose", track_figures=pk_figures(1.2))
    contest_ranks.contest_board_changed(contest_id=contest.pk)

    body = client.get(f"/api/contests/{contest.slug}/leaderboard/").json()

    order = [(row["entrant"][:16], round(row["track_metric"], 2)) for row in body["results"]]
    # The seed's tests 1 to 4 have ratios 0.69, 1.48, 0.70, 0.71.
    assert order == [
        ("Ordered keys win", 0.5),
        ("Seed 004 test 1 ", 0.69),
        ("Seed 004 test 3 ", 0.7),
        ("Seed 004 test 4 ", 0.71),
        ("Ordered keys los", 1.2),
        ("Seed 004 test 2 ", 1.48),
    ]
    assert [row["rank"] for row in body["results"]] == [1, None, None, None, 2, None]
    assert ranks_of(good, poor) == [1, 2]


def test_the_bulk_load_board_groups_entries_and_references_by_class(client):
    contest = ContestFactory(workload=Workload.BULK_LOAD)
    reference_rows.reference_results_create(contest=contest)
    entry(
        contest, 150_000.0, "k001l0000064", entrant_name="Fast loader",
        track_figures=load_figures(1, 64, 150_000.0),
    )  # fmt: skip
    contest_ranks.contest_board_changed(contest_id=contest.pk)

    body = client.get(f"/api/contests/{contest.slug}/leaderboard/").json()

    rows = [(row["track_class"], row["entrant"]) for row in body["results"]]
    assert rows[:3] == [
        ("keys=1, row length=64", "Fast loader"),
        ("keys=1, row length=64", "TokuDB v4, keys=1, row length=64"),
        ("keys=1, row length=64", "TokuDB v3, keys=1, row length=64"),
    ]
    assert [cls for cls, _ in rows[3:]] == [
        "keys=1, row length=256",
        "keys=1, row length=256",
        "keys=4, row length=64",
        "keys=4, row length=64",
        "keys=4, row length=256",
        "keys=4, row length=256",
    ]


def test_a_track_board_sorts_by_its_metric_when_asked(client):
    contest = ContestFactory(workload=Workload.CRASH_RECOVERY)
    entry(contest, 13.0, "r000000002000", entrant_name="B", track_figures=crash(2_000, 13))
    entry(contest, 2.0, "r000000000200", entrant_name="A", track_figures=crash(200, 2))
    entry(contest, 501.0, "r000000016000", entrant_name="C", track_figures=crash(16_000, 501))
    contest_ranks.contest_board_changed(contest_id=contest.pk)
    url = reverse("api_leaderboard", args=[contest.slug])

    by_class = client.get(url).json()["results"]
    slowest_first = client.get(url + "?sort=-metric").json()["results"]

    assert [row["entrant"] for row in by_class] == ["A", "B", "C"]
    assert [row["rank"] for row in by_class] == [1, 1, 1]
    assert [row["entrant"] for row in slowest_first] == ["C", "B", "A"]


DAY_1 = 86_400.0


def load_figures(keys: int, row_length: int, rate: float) -> dict:
    return {
        "keys": keys,
        "row_length": row_length,
        "rows": 200_000,
        "rows_per_s": rate,
        "kv_pairs_per_s": rate * keys,
        "mb_per_s": rate * row_length / 1e6,
        "seconds": 200_000 / rate,
    }
