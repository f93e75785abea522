"""The pages that answer a reader's first questions (issue 43): the home page's comparison, the
board's like-hardware filters and references at the contest's scale, an entry's placement among
its engine's, compare from the found entries, and one CPU model, one page."""

from datetime import date, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from submissions.board.summary import running_bests
from submissions.contests import ranks as contest_ranks
from submissions.models import Workload
from submissions.setup.cpus import cpu_model_name
from submissions.tracks.crash_recovery import class_key as crash_class
from testing.factories import ContestFactory, ReferenceResultFactory, SubmissionFactory
from testing.pages import board_rows, table_rows

pytestmark = pytest.mark.django_db

DAY = 86_400.0
ENTRANT, HARDWARE, TO_TARGET = 1, 3, 4


def ranked(contest):
    contest_ranks.contest_board_changed(contest_id=contest.pk)
    return contest


def test_the_home_page_names_each_contests_leader_and_best_verified_with_units(client):
    contest = ContestFactory(title="Billion rows")
    SubmissionFactory(contest=contest, entrant_name="Fast", elapsed_seconds=2 * DAY)
    SubmissionFactory(
        contest=contest, entrant_name="Checked", elapsed_seconds=5 * DAY, verified=True
    )
    hidden = ContestFactory(title="Under embargo", results_published_at=None)
    SubmissionFactory(contest=hidden, entrant_name="Secret")
    ranked(contest)

    html = client.get("/").content.decode()
    rows = {row["cells"][0].split(" Indexed")[0]: row for row in table_rows(html, "leaders-table")}

    leader = rows["Billion rows"]["cells"]
    assert leader[1] == "Fast InnoDB"
    # 1,000,000,000 rows in 2 days: 5,787 rows/s on average.
    assert leader[2] == "2d 0h 00m 00s to 1,000,000,000 rows 5,787 rows/s on average"
    assert leader[3] == "Checked InnoDB: 5d 0h 00m 00s, 2,315 rows/s"
    assert rows["Under embargo"]["cells"][1] == "Results not published yet."
    assert "Secret" not in html


def test_the_home_page_lists_the_latest_results_and_charts_each_engines_best(client):
    contest = ContestFactory()
    SubmissionFactory(contest=contest, entrant_name="Old", storage_engine="InnoDB")
    SubmissionFactory(contest=contest, entrant_name="New", storage_engine="MyRocks")
    ranked(contest)

    response = client.get("/")
    html = response.content.decode()

    assert html.index("New") < html.index("Old", html.index("Latest results"))
    chart = response.context["engine_chart"]
    assert {line["name"] for line in chart} == {"InnoDB", "MyRocks"}
    assert all(rate > 0 for line in chart for rate in line["rates"])
    assert "vendor/plotly-basic.min.js" in html and "cdn" not in html.lower()


def test_the_home_page_is_built_once_per_set_of_board_versions(
    client, django_assert_max_num_queries
):
    contest = ContestFactory()
    SubmissionFactory(contest=contest, entrant_name="First")
    ranked(contest)
    client.get("/")

    # Served again: the contests (with their versions) and the seeds' question, nothing more.
    with django_assert_max_num_queries(2):
        client.get("/")

    SubmissionFactory(contest=contest, entrant_name="Second", elapsed_seconds=DAY)
    ranked(contest)  # a new entry moves the board's version: the home page follows
    assert "Second" in client.get("/").content.decode()


def test_the_home_page_promises_the_seeds_runs_only_once_they_are_made(client):
    html = client.get("/").content.decode()
    assert "none is reproduced on this registry yet" in html
    assert "made here." not in html


def test_an_engines_best_line_only_rises_and_holds_to_today():
    monthly = [
        ("InnoDB", date(2024, 1, 1), 500.0),
        ("InnoDB", date(2024, 2, 1), 400.0),  # worse: the best so far holds
        ("InnoDB", date(2024, 3, 1), 900.0),
        ("MyRocks", date(2024, 2, 1), 5_000.0),
    ]
    lines = running_bests(monthly, date(2024, 6, 1))

    assert [line.engine for line in lines] == ["MyRocks", "InnoDB"]
    innodb = lines[1]
    assert innodb.months == [date(2024, 1, 1), date(2024, 3, 1), date(2024, 6, 1)]
    assert innodb.rates == [500.0, 900.0, 900.0]


def test_the_board_filters_by_cpu_model_with_its_variants_cores_and_memory(client):
    contest = ContestFactory()
    SubmissionFactory(contest=contest, entrant_name="Bare", cpu_model="AMD EPYC", cores=2)
    SubmissionFactory(
        contest=contest, entrant_name="Cloud", cpu_model="AMD EPYC (virtual, 2 vCPUs)", cores=2
    )
    SubmissionFactory(contest=contest, entrant_name="Other", cpu_model="AMD EPYC 7763", cores=64)
    SubmissionFactory(contest=contest, entrant_name="Big", cpu_model="AMD EPYC", memory_gb=512)
    url = ranked(contest).get_absolute_url()

    def entrants(query):
        return sorted(row[ENTRANT] for row in board_rows(client.get(url + query)))

    assert entrants("?cpu=AMD+EPYC") == ["Bare", "Big", "Cloud"]
    assert entrants("?cpu=AMD+EPYC&cores=2") == ["Bare", "Cloud"]
    assert entrants("?memory=512") == ["Big"]
    html = client.get(url).content.decode()
    # One name per model in the CPU filter, the variants under it.
    assert "<option>AMD EPYC</option><option>AMD EPYC 7763</option></select>" in html


def test_the_drives_filter_finds_virtual_volumes_whatever_their_kind(client):
    contest = ContestFactory()
    SubmissionFactory(contest=contest, entrant_name="Local", drive_kind="ssd")
    SubmissionFactory(contest=contest, entrant_name="Cloud disk", direct_attached=False)
    ReferenceResultFactory(contest=contest)
    url = ranked(contest).get_absolute_url()

    rows = board_rows(client.get(url + "?drive=virtual"))

    assert [row[ENTRANT] for row in rows] == ["Cloud disk"]  # no reference row either


def test_a_reference_at_another_scale_shows_no_time_to_this_contests_target(client):
    contest = ContestFactory(target_rows=1_000_000)
    SubmissionFactory(contest=contest, rows=1_000_000, elapsed_seconds=38.0)
    ReferenceResultFactory(contest=contest, label="Tokutek InnoDB (2008 contest)")
    ReferenceResultFactory(
        contest=contest, label="At this scale", rows=1_000_000, elapsed_seconds=60.0
    )
    html = client.get(ranked(contest).get_absolute_url()).content.decode()

    times = {row[ENTRANT]: row[TO_TARGET] for row in board_rows_of(html)}
    assert times["Tokutek InnoDB (2008 contest)"] == "—"  # not its 1B rows' "19d 14h"
    assert times["At this scale"] == "1m 00s"
    assert "Published for 1,000,000,000 rows, not this contest&#x27;s 1,000,000." in html


def board_rows_of(html):
    return [row["cells"][1:] for row in table_rows(html, "ranking")]


def test_an_open_contest_with_no_deadline_shows_no_publication_date(client):
    contest = ContestFactory(deadline=None, results_published_at=timezone.now() - timedelta(9))
    closed = ContestFactory(deadline=timezone.now() - timedelta(20))

    assert "results published" not in client.get(contest.get_absolute_url()).content.decode()
    assert (
        "results public as they arrive" in client.get(contest.get_absolute_url()).content.decode()
    )
    assert "results published" in client.get(closed.get_absolute_url()).content.decode()


def test_an_entry_says_how_many_of_its_engines_entries_it_beats(client):
    contest = ContestFactory()
    entries = [
        SubmissionFactory(contest=contest, elapsed_seconds=days * DAY) for days in (1, 2, 3, 4, 5)
    ]
    SubmissionFactory(contest=contest, storage_engine="MyRocks", elapsed_seconds=0.5 * DAY)
    ranked(contest)

    second = client.get(entries[1].get_absolute_url()).content.decode()
    last = client.get(entries[4].get_absolute_url()).content.decode()

    # Of the four other InnoDB entries, the second beats three; MyRocks's is not counted.
    assert "Faster than 75% of the other InnoDB entries in this contest (3 of 4)" in second
    assert "Behind or level with the 4 other InnoDB entries in this contest" in last
    leader = contest.submissions.get(storage_engine="MyRocks")
    assert f'href="/compare/?ids={entries[1].pk},{leader.pk}">Compare with the leader' in second


def test_engine_and_search_pages_send_ticked_entries_to_compare(client):
    first, second = SubmissionFactory.create_batch(2, storage_engine="InnoDB")

    for url in (reverse("engine_page", args=["innodb"]), "/search/?q=InnoDB"):
        html = client.get(url).content.decode()
        picks = [row.get("pick") for row in table_rows(html, "entries-found")]
        assert sorted(picks) == sorted([str(first.pk), str(second.pk)])
        assert f'action="{reverse("compare")}"' in html and "Compare selected" in html


def test_one_cpu_model_has_one_page_listing_how_its_entries_spelled_it(client):
    SubmissionFactory(cpu_model="AMD EPYC")
    SubmissionFactory(cpu_model="AMD EPYC (virtual, 2 vCPUs)")
    SubmissionFactory(cpu_model="AMD EPYC 7763")

    for spelled in ("AMD EPYC", "AMD EPYC (virtual, 2 vCPUs)"):
        response = client.get(reverse("cpu_page", args=[spelled]))
        html = response.content.decode()
        assert "<h1>AMD EPYC</h1>" in html
        assert "Entered as <q>AMD EPYC</q>, <q>AMD EPYC (virtual, 2 vCPUs)</q>" in html
        assert len(table_rows(html, "entries-found")) == 2  # not the EPYC 7763


@pytest.mark.parametrize(
    ("spelled", "model"),
    [
        ("AMD EPYC (virtual, 2 vCPUs)", "AMD EPYC"),
        ("Intel Xeon E5-2680 v4 @ 2.40GHz", "Intel Xeon E5-2680 v4"),
        ("Xeon X5460 (2x) @ 3.16 GHz", "Xeon X5460"),
        ("  Apple   M2 ", "Apple M2"),
        ("(virtual)", "(virtual)"),  # nothing left would be no name at all
    ],
)
def test_a_cpu_models_name_drops_only_what_trails_it(spelled, model):
    assert cpu_model_name(spelled) == model


def test_a_board_ranked_in_classes_measures_each_row_against_its_class_leader(client):
    contest = ContestFactory(workload=Workload.CRASH_RECOVERY)
    for seconds, rate in ((0.2, 200.0), (0.4, 200.0), (1.0, 2_000.0), (3.0, 2_000.0)):
        figures = {"recovery_seconds": seconds, "insert_rate": rate, "rows_at_crash": 10}
        SubmissionFactory(
            contest=contest,
            track_figures=figures,
            track_metric=seconds,
            track_class=crash_class(figures),
        )
    html = client.get(ranked(contest).get_absolute_url()).content.decode()

    shares = [row["relative"] for row in table_rows(html, "ranking")]
    sign = "\N{MULTIPLICATION SIGN}"
    # Each class's leader is its own best: 0.2 s / 0.4 s, and 1 s / 3 s.
    assert sorted(shares) == sorted(
        f"{share}{sign} of the best" for share in ("1.00", "0.50", "1.00", "0.33")
    )


def test_the_api_board_takes_the_like_hardware_filters(client):
    contest = ContestFactory()
    SubmissionFactory(contest=contest, entrant_name="Cloud", cpu_model="AMD EPYC (virtual)")
    SubmissionFactory(contest=contest, entrant_name="Iron", cores=64, direct_attached=False)
    url = reverse("api_leaderboard", args=[ranked(contest).slug])

    def entrants(query):
        return [row["entrant"] for row in client.get(url + query).json()["results"]]

    assert entrants("?cpu=AMD+EPYC") == ["Cloud"]
    assert entrants("?cores=64&drive=virtual") == ["Iron"]


@pytest.mark.parametrize(
    "query",
    ["?cores=99999999999", "?cores=-3", "?memory=nan", "?memory=inf", "?cpu=50%25_"],
)
def test_a_hardware_filter_out_of_range_is_ignored_or_finds_nothing_never_an_error(client, query):
    contest = ContestFactory()
    SubmissionFactory(contest=contest)
    response = client.get(ranked(contest).get_absolute_url() + query)
    assert response.status_code == 200


def test_a_nul_in_a_hardware_filter_is_a_400_naming_it(client):
    # As every parameter with a NUL (web/text_input.py): refused, named, never a 500.
    contest = ContestFactory()
    SubmissionFactory(contest=contest)
    response = client.get(ranked(contest).get_absolute_url() + "?cpu=%00x")
    assert response.status_code == 400
    assert "The parameter cpu holds a NUL character" in response.content.decode()


def test_the_leader_is_found_behind_more_reference_rows_than_a_first_page_holds(client):
    contest = ContestFactory()
    SubmissionFactory(contest=contest, entrant_name="Slowest leader", elapsed_seconds=30 * DAY)
    ReferenceResultFactory.create_batch(12, contest=contest, elapsed_seconds=DAY)
    ranked(contest)

    leaders = table_rows(client.get("/").content.decode(), "leaders-table")

    assert leaders[0]["cells"][1] == "Slowest leader InnoDB"
