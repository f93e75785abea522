"""reference_rows.reference_results_create: the seeds' published results as a contest's reference rows."""

import pytest

from submissions.contests import reference_rows
from submissions.entries import services
from submissions.models import ReferenceResult, Workload
from testing.factories import ContestFactory

pytestmark = pytest.mark.django_db

DAY = 86_400.0


def figures(contest) -> list[tuple]:
    return list(
        ReferenceResult.objects.filter(contest=contest)
        .order_by("label")
        .values_list("storage_engine", "elapsed_seconds", "estimated", "terminal_rate", "size_gib")
    )


def test_it_stores_the_2008_contest_results_and_the_terminal_rate_briefs():
    contest = ContestFactory()

    reference_rows.reference_results_create(contest=contest)

    assert sorted(figures(contest), key=repr) == sorted(
        [
            ("InnoDB", 19.6 * DAY, False, 404.0, 166.0),
            ("MyISAM", 121 * DAY, True, 93.0, None),
            ("InnoDB", None, False, 876.0, None),
            ("TokuDB", None, False, 15_853.0, None),
            ("TokuDB", None, False, 11_220.0, None),
        ],
        key=repr,
    )
    assert ReferenceResult.objects.get(terminal_rate=404).label == "Tokutek InnoDB (2008 contest)"


def test_it_updates_the_rows_in_place_when_run_again():
    contest = ContestFactory()
    reference_rows.reference_results_create(contest=contest)
    ReferenceResult.objects.filter(terminal_rate=404).update(note="edited by hand")

    reference_rows.reference_results_create(contest=contest)

    assert ReferenceResult.objects.filter(contest=contest).count() == 5
    assert ReferenceResult.objects.get(terminal_rate=404).note.startswith("Elapsed 19.6 days")


def test_it_stores_the_fifo_results_for_an_insert_delete_contest():
    contest = ContestFactory(workload=Workload.FIFO)

    reference_rows.reference_results_create(contest=contest)

    assert sorted(rate for *_, rate, _ in figures(contest)) == [204.0, 5_088.0, 7_109.0]


# The tracks whose seeds published results (a new track may have none).
SEED_TRACKS = ("classic", "fifo", "query", "pk_types", "bulk_load", "crash_recovery")


def test_every_track_gets_the_figures_its_seed_published():
    counts = {}
    for workload in SEED_TRACKS:
        contest = ContestFactory(workload=workload)
        counts[workload] = len(reference_rows.reference_results_create(contest=contest))

    assert counts == {
        "classic": 5,
        "fifo": 3,
        "query": 2,
        "pk_types": 4,
        "bulk_load": 8,
        "crash_recovery": 5,
    }


def test_a_track_reference_row_carries_its_figures_metric_and_class():
    contest = ContestFactory(workload=Workload.BULK_LOAD)

    reference_rows.reference_results_create(contest=contest)

    v4 = ReferenceResult.objects.get(contest=contest, label="TokuDB v4, keys=4, row length=64")
    assert v4.track_figures["kv_pairs_per_s"] == 330_000
    assert v4.track_metric == 82_000
    assert v4.track_class == "k004l0000064"


def test_query_references_are_compared_at_the_contests_table_size():
    contest = ContestFactory(workload=Workload.QUERY, track_rules={"query_at_rows": 130_000_000})

    reference_rows.reference_results_create(contest=contest)

    myisam = ReferenceResult.objects.get(contest=contest, storage_engine="MyISAM")
    # 17.7 s at 125M, 406 s at 132M: 5/7 of the way up the cliff.
    assert myisam.track_metric == pytest.approx(17.7 + (406 - 17.7) * 5 / 7)
    contest.track_rules = {"query_at_rows": 125_000_000}
    contest.save()
    services.contest_recheck(contest=contest)
    assert ReferenceResult.objects.get(pk=myisam.pk).track_metric == pytest.approx(17.7)


def test_it_shows_the_stored_references_on_the_board_unranked(client):
    contest = ContestFactory()
    reference_rows.reference_results_create(contest=contest)

    body = client.get(f"/api/contests/{contest.slug}/leaderboard/").json()

    assert body["count"] == 5
    assert all(row["reference"] and row["rank"] is None for row in body["results"])
    assert body["results"][0]["entrant"] == "Tokutek InnoDB (2008 contest)"
