"""The leaderboard on a contest's page, as a visitor and as an organizer see it."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from submissions.contests import ranks as contest_ranks
from testing.factories import (
    ContestFactory,
    ReferenceResultFactory,
    StaffFactory,
    SubmissionFactory,
    UserFactory,
)
from testing.pages import board_rows, board_shares, not_ranked_rows, table_rows

pytestmark = pytest.mark.django_db

DAY = 86_400.0


def entry(contest, **fields):
    return SubmissionFactory(contest=contest, **fields)


def ranked(contest):
    contest_ranks.contest_board_changed(contest_id=contest.pk)
    return contest


def board(client, contest, query=""):
    return client.get(reverse("contest_detail", args=[contest.slug]) + query)


def column(rows, index):
    return [row[index] for row in rows]


RANK, ENTRANT, ENGINE, HARDWARE, TO_TARGET, TERMINAL, AVERAGE, VERIFIED = range(8)
# With "more columns" (?costs=1) the elapsed time sits before the time to the target.
MORE = "?costs=1"
MORE_ELAPSED, MORE_TO_TARGET = 4, 5


def test_it_ranks_the_entries_by_time_to_the_target_rows(client):
    contest = ContestFactory()
    entry(contest, entrant_name="Slow", elapsed_seconds=19.6 * DAY, terminal_rate=404)
    entry(contest, entrant_name="Fast", elapsed_seconds=2 * DAY, terminal_rate=9_000)
    entry(contest, entrant_name="Middle", elapsed_seconds=5 * DAY, terminal_rate=2_000)

    rows = board_rows(board(client, ranked(contest)))

    assert column(rows, ENTRANT) == ["Fast", "Middle", "Slow"]
    assert column(rows, RANK) == ["1", "2", "3"]
    assert rows[2][TO_TARGET:AVERAGE] == ["19d 14h 24m 00s", "404"]


def test_each_row_reads_as_a_share_of_the_best_entrys_speed(client):
    contest = ContestFactory()
    entry(contest, entrant_name="Slow", elapsed_seconds=19.6 * DAY)
    entry(contest, entrant_name="Fast", elapsed_seconds=2 * DAY)
    entry(contest, entrant_name="Middle", elapsed_seconds=5 * DAY)
    ranked(contest)

    # The leader's time over each row's: Middle took 2.5 times as long, so 0.40 of its speed.
    shares = [f"{share}\N{MULTIPLICATION SIGN} of the best" for share in ("1.00", "0.40", "0.10")]
    assert board_shares(board(client, contest)) == shares
    # A later page still measures against rank 1, which it does not show.
    assert board_shares(board(client, contest, "?page_size=1&page=3")) == shares[2:]


def test_neighbouring_ranks_days_apart_by_minutes_read_apart(client):
    # Ranks 1 to 4 of the open board all read "10.3 days"; they differ by up to 28 minutes.
    contest = ContestFactory()
    for minutes, name in ((0, "A"), (9, "B"), (17, "C"), (28, "D")):
        entry(contest, entrant_name=name, elapsed_seconds=10.3 * DAY + 60 * minutes)

    rows = board_rows(board(client, ranked(contest)))

    assert column(rows, TO_TARGET) == [
        "10d 7h 12m 00s", "10d 7h 21m 00s", "10d 7h 29m 00s", "10d 7h 40m 00s",
    ]  # fmt: skip
    assert len(set(column(rows, TO_TARGET))) == 4


def test_an_unfinished_run_shows_its_measured_time_and_its_estimate_apart(client):
    # A 17 s run of 1,000,000 rows extrapolated to 34,465 s for 1B rows: elapsed is 17 s.
    contest = ContestFactory()
    entry(
        contest, entrant_name="Short", elapsed_seconds=17.0, seconds_to_target=34_465.0,
        estimated=True, estimate_basis="measured 17.0 s to 1,000,000 rows, then 999,000,000 "
        "rows at the terminal rate of 29,000 rows/s",
    )  # fmt: skip
    entry(contest, entrant_name="Finished", elapsed_seconds=40_000.0)

    response = board(client, ranked(contest), MORE)
    rows = board_rows(response)

    # The estimate never ranks as if measured, although it is the smaller number.
    assert column(rows, ENTRANT) == ["Finished", "Short"]
    assert rows[1][MORE_ELAPSED] == "17.0 s"
    assert rows[1][MORE_TO_TARGET] == "9h 34m 25s (est.)"
    assert "at the terminal rate of 29,000 rows/s" in response.content.decode()


def test_it_breaks_ties_by_terminal_rate_and_shares_ranks_when_equal(client):
    contest = ContestFactory()
    entry(contest, entrant_name="A", seconds_to_target=DAY, terminal_rate=900)
    entry(contest, entrant_name="B", seconds_to_target=3 * DAY, terminal_rate=500)
    entry(contest, entrant_name="C", seconds_to_target=3 * DAY, terminal_rate=800)
    entry(contest, entrant_name="D", seconds_to_target=3 * DAY, terminal_rate=800)

    rows = board_rows(board(client, ranked(contest)))

    assert [(row[RANK], row[ENTRANT]) for row in rows] == [
        ("1", "A"),
        ("2", "C"),
        ("2", "D"),
        ("4", "B"),
    ]


def test_it_shows_anonymous_entrant_unless_the_entrant_opted_in(client):
    contest = ContestFactory()
    entry(contest, entrant_name="Grace Hopper", publish=True)
    entry(contest, entrant_name="Secret Person", email="secret@example.org", publish=False)

    response = board(client, ranked(contest))

    assert sorted(column(board_rows(response), ENTRANT)) == ["Anonymous entrant", "Grace Hopper"]
    assert b"Secret Person" not in response.content
    assert b"secret@example.org" not in response.content


def test_it_hides_the_board_from_the_public_until_the_results_are_published(client):
    publication = timezone.now() + timedelta(days=3)
    contest = ContestFactory(results_published_at=publication, timezone="UTC")
    entry(contest, entrant_name="Early Bird")

    response = board(client, ranked(contest))

    assert response.status_code == 200
    assert f"Results are published on {publication:%-d %b %Y, %H:%M} UTC".encode() in (
        response.content
    )
    assert board_rows(response) == []
    assert b"Early Bird" not in response.content


def test_it_hides_a_board_with_no_publication_time(client):
    contest = ContestFactory(results_published_at=None)
    entry(contest)

    response = board(client, ranked(contest))

    assert b"Results are not published yet." in response.content
    assert board_rows(response) == []


def test_it_hides_the_embargoed_board_from_an_entrant_of_that_contest(client):
    contest = ContestFactory(results_published_at=timezone.now() + timedelta(days=1))
    mine = entry(contest, entrant_name="Me")
    entry(contest, entrant_name="Rival")
    client.force_login(mine.owner)

    response = board(client, ranked(contest))

    assert board_rows(response) == []
    assert b"Rival" not in response.content


def test_it_shows_organizers_the_embargoed_board_with_a_banner(client):
    contest = ContestFactory(results_published_at=timezone.now() + timedelta(days=1))
    entry(contest, entrant_name="Early Bird")
    client.force_login(StaffFactory())

    response = board(client, ranked(contest))

    assert b"Embargoed: visible to organizers only" in response.content
    assert column(board_rows(response), ENTRANT) == ["Early Bird"]


def test_it_shows_reference_rows_where_their_time_puts_them_never_ranked(client):
    contest = ContestFactory()
    entry(contest, entrant_name="Fast", elapsed_seconds=2 * DAY)
    entry(contest, entrant_name="Slow", elapsed_seconds=30 * DAY)
    ReferenceResultFactory(
        contest=contest, label="Tokutek InnoDB (2008 contest)", elapsed_seconds=19.6 * DAY
    )
    ReferenceResultFactory(
        contest=contest,
        label="TokuDB brief",
        storage_engine="TokuDB",
        elapsed_seconds=None,
        terminal_rate=15_853,
    )

    response = board(client, ranked(contest))
    rows = board_rows(response)

    assert column(rows, ENTRANT) == [
        "Fast",
        "Tokutek InnoDB (2008 contest)",
        "Slow",
        "TokuDB brief",
    ]
    assert column(rows, RANK) == ["1", "reference", "2", "reference"]
    assert rows[3][TO_TARGET:AVERAGE] == ["—", "15,853"]
    classes = [row["class"] for row in table_rows(response.content.decode(), "ranking")]
    assert classes == ["", "reference", "", "reference"]


def test_it_lists_entries_that_are_not_ranked_below_with_their_reason(client):
    contest = ContestFactory()
    entry(contest, entrant_name="Ranked")
    entry(
        contest,
        entrant_name="Too Big",
        eligible=False,
        ineligible_reason="32 cores declared; the contest allows at most 8.",
    )

    response = board(client, ranked(contest))

    assert column(board_rows(response), ENTRANT) == ["Ranked"]
    assert [(row[1], row[-1]) for row in not_ranked_rows(response)] == [
        ("Too Big", "32 cores declared; the contest allows at most 8.")
    ]


def test_it_says_an_eligible_entry_without_a_time_is_not_ranked_for_that(client):
    contest = ContestFactory()
    entry(contest, entrant_name="Stopped early", seconds_to_target=None)

    ((_, entrant, *_, reason),) = not_ranked_rows(board(client, ranked(contest)))

    assert (entrant, reason) == (
        "Stopped early",
        "No time to the target rows could be measured or estimated.",
    )


def test_it_shows_the_storage_engine_hardware_rates_and_verified_badge(client):
    contest = ContestFactory()
    entry(
        contest,
        storage_engine="TokuDB",
        sockets=2,
        cpu_model="Xeon X5460",
        cores=8,
        memory_gb=16,
        drives=6,
        drive_kind="ssd",
        raid_level="RAID 0",
        elapsed_seconds=3 * 3600,
        terminal_rate=15_853,
        average_rate=92_592.6,
        verified=True,
    )

    (row,) = board_rows(board(client, ranked(contest)))

    assert row[ENGINE:] == [
        "TokuDB",
        "2x Xeon X5460, 8 cores, 16 GB, 6x SSD, RAID 0",
        "3h 00m 00s",
        "15,853",
        "92,593",
        "verified",
    ]


def test_it_filters_by_engine_drive_and_verified_keeping_the_overall_rank(client):
    contest = ContestFactory()
    entry(contest, entrant_name="Toku SSD", storage_engine="TokuDB", drive_kind="ssd",
          seconds_to_target=DAY, verified=True)  # fmt: skip
    entry(contest, entrant_name="Inno SSD", storage_engine="InnoDB", drive_kind="ssd",
          seconds_to_target=2 * DAY)  # fmt: skip
    entry(contest, entrant_name="Inno HDD", storage_engine="InnoDB", drive_kind="hdd",
          seconds_to_target=3 * DAY, verified=True)  # fmt: skip
    ranked(contest)

    by_engine = board_rows(board(client, contest, "?engine=innodb"))
    by_drive = board_rows(board(client, contest, "?drive=hdd"))
    verified = board_rows(board(client, contest, "?verified=1&engine=InnoDB"))

    assert [(row[RANK], row[ENTRANT]) for row in by_engine] == [
        ("2", "Inno SSD"),
        ("3", "Inno HDD"),
    ]
    assert column(by_drive, ENTRANT) == ["Inno HDD"]
    assert column(verified, ENTRANT) == ["Inno HDD"]


def test_it_leaves_reference_rows_out_of_the_verified_only_board(client):
    contest = ContestFactory()
    entry(contest, entrant_name="Checked", verified=True)
    ReferenceResultFactory(contest=contest, label="Tokutek InnoDB")

    rows = board_rows(board(client, ranked(contest), "?verified=1"))

    assert column(rows, ENTRANT) == ["Checked"]


def test_it_sorts_by_the_column_in_the_url(client):
    contest = ContestFactory()
    entry(contest, entrant_name="Fast start", seconds_to_target=DAY, terminal_rate=300)
    entry(contest, entrant_name="Strong finish", seconds_to_target=2 * DAY, terminal_rate=5_000)
    ReferenceResultFactory(contest=contest, label="Brief", elapsed_seconds=None, terminal_rate=900)
    ranked(contest)

    best_terminal = board_rows(board(client, contest, "?sort=-terminal_rate"))
    worst_terminal = board_rows(board(client, contest, "?sort=terminal_rate"))

    assert column(best_terminal, ENTRANT) == ["Strong finish", "Brief", "Fast start"]
    assert column(best_terminal, RANK) == ["2", "reference", "1"]
    assert column(worst_terminal, ENTRANT) == ["Fast start", "Brief", "Strong finish"]


def test_it_sorts_anonymous_entries_by_their_public_name_only(client):
    contest = ContestFactory()
    entry(contest, entrant_name="Zed", publish=True)
    entry(contest, entrant_name="Aaron", publish=False)  # must not sort first by a hidden name
    entry(contest, entrant_name="Bea", publish=True)

    rows = board_rows(board(client, ranked(contest), "?sort=entrant"))

    assert column(rows, ENTRANT) == ["Anonymous entrant", "Bea", "Zed"]


def test_it_ignores_a_sort_that_is_not_a_column(client):
    contest = ContestFactory()
    entry(contest, entrant_name="Second", seconds_to_target=2 * DAY)
    entry(contest, entrant_name="First", seconds_to_target=DAY)

    response = board(client, ranked(contest), "?sort=email")

    assert response.status_code == 200
    assert column(board_rows(response), ENTRANT) == ["First", "Second"]


def test_it_links_column_headers_to_sorts_that_keep_the_filters(client):
    contest = ContestFactory()
    entry(contest)

    response = board(client, ranked(contest), "?engine=InnoDB&sort=-terminal_rate&page=1")
    html = response.content.decode()

    assert 'href="?engine=InnoDB&amp;sort=terminal_rate#leaderboard"' in html
    assert 'href="?engine=InnoDB&amp;sort=to_target#leaderboard"' in html
    assert 'href="?engine=InnoDB&amp;sort=-terminal_rate&amp;costs=1#leaderboard"' in html


def test_it_pages_the_board_with_the_page_in_the_url(client):
    contest = ContestFactory()
    for day in range(1, 6):
        entry(contest, entrant_name=f"Day {day}", seconds_to_target=day * DAY)
    ranked(contest)

    second = board(client, contest, "?page_size=2&page=2&engine=InnoDB")
    last = board(client, contest, "?page_size=2&page=99")

    assert column(board_rows(second), ENTRANT) == ["Day 3", "Day 4"]
    html = second.content.decode()
    # A filtered board is counted only as far as the page: that more follow, not how many.
    assert "page 2 · rows 3\u20134, more follow" in html and "page 2 of" not in html
    assert 'href="?page_size=2&amp;page=3&amp;engine=InnoDB#leaderboard"' in html
    assert column(board_rows(last), ENTRANT) == ["Day 5"]


def test_it_pages_reference_rows_with_the_entries(client):
    contest = ContestFactory()
    for day in (1, 2, 3, 4):
        entry(contest, entrant_name=f"Day {day}", seconds_to_target=day * DAY)
    ReferenceResultFactory(contest=contest, label="Ref 2.5", elapsed_seconds=2.5 * DAY)
    ranked(contest)

    pages = [
        column(board_rows(board(client, contest, f"?page_size=2&page={page}")), ENTRANT)
        for page in (1, 2, 3)
    ]

    assert pages == [["Day 1", "Day 2"], ["Ref 2.5", "Day 3"], ["Day 4"]]


def test_it_offers_each_entry_for_comparison(client):
    contest = ContestFactory()
    first = entry(contest)
    ReferenceResultFactory(contest=contest)

    response = board(client, ranked(contest))
    rows = table_rows(response.content.decode(), "ranking")

    assert [row.get("pick") for row in rows] == [str(first.pk), None]
    assert f'action="{reverse("compare")}"'.encode() in response.content


def test_it_links_downloads_with_the_current_filters(client):
    contest = ContestFactory()
    entry(contest)

    html = board(client, ranked(contest), "?engine=InnoDB&page=2").content.decode()

    assert f'href="/contests/{contest.slug}/leaderboard.csv?engine=InnoDB"' in html
    assert f'href="/contests/{contest.slug}/leaderboard.json?engine=InnoDB"' in html


@pytest.mark.parametrize("entries", [5, 50])
def test_it_reads_the_board_in_the_same_few_queries_however_many_entries(
    client, django_assert_max_num_queries, entries
):
    contest = ContestFactory()
    SubmissionFactory.create_batch(entries, contest=contest, owner=UserFactory())
    SubmissionFactory.create_batch(3, contest=contest, owner=UserFactory(), eligible=False)
    ReferenceResultFactory.create_batch(2, contest=contest)
    ranked(contest)

    # 10: the stamp, the contest, its references, the rules' current version, the counts kept
    # with the reference rows' places (one query), the page, its rows' ranks (derived, never
    # stored: a page in rank order needs no query for them), the engines, the machines (the
    # like-hardware filters' choices, read ahead with the engines), and the live runs listed
    # above the board; none grows with the entries.
    with django_assert_max_num_queries(10):
        response = board(client, contest, "?sort=-terminal_rate&page_size=100")

    assert len(board_rows(response)) == entries + 2


def test_the_terminal_rate_is_marked_where_it_breaks_a_tie(client):
    contest = ContestFactory()
    entry(contest, entrant_name="A", elapsed_seconds=10.3 * DAY, terminal_rate=900)
    entry(contest, entrant_name="B", elapsed_seconds=10.3 * DAY + 0.2, terminal_rate=1_200)
    entry(contest, entrant_name="C", elapsed_seconds=12 * DAY, terminal_rate=800)

    rows = board_rows(board(client, ranked(contest)))

    assert column(rows, ENTRANT) == ["A", "B", "C"]
    assert column(rows, TERMINAL) == ["900 tie-break", "1,200 tie-break", "800"]
