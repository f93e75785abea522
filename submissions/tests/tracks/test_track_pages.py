"""What a visitor and an entrant see of a track: the board's columns, the entry page's figures
and plot, the submission form's extra fields, the API's track figures."""

import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from submissions.contests import reference_rows
from submissions.entries import refusals
from submissions.models import Submission, Workload
from testing.entries import DECLARED
from testing.factories import ContestFactory, UserFactory
from testing.logs import c_fifo_log, c_load_log, c_pk_run
from testing.pages import board_rows, not_ranked_rows, table_rows
from testing.tracks import OPEN, fifo_contest, submit

pytestmark = pytest.mark.django_db

CRASH = {"insert_rate": "200", "rows_at_crash": "250000", "recovery_seconds": "2"}


def header_labels(html: str) -> list[str]:
    head = html.split('class="data board ranking"')[1].split("</thead>")[0]
    return [
        " ".join(cell.split("</th>")[0].split(">")[-1].split())
        or cell.split("</a>")[0].split(">")[-1]
        for cell in head.split("<th")[2:]
    ]


def test_the_fifo_board_shows_the_terminal_insert_rate_and_where_deletes_began(client):
    contest = fifo_contest()
    submit(contest, c_fifo_log(delete_rate=20_000.0), name="Steady")
    submit(contest, c_fifo_log(delete_rate=25_000.0), name="Quicker")

    response = client.get(contest.get_absolute_url())
    rows = board_rows(response)

    assert [(row[0], row[1], row[4], row[5]) for row in rows] == [
        ("1", "Quicker", "25,000", "250,000"),
        ("2", "Steady", "20,000", "250,000"),
    ]
    html = response.content.decode()
    assert "Terminal insert rate" in html and "Deletes from" in html
    assert "Ranked by the terminal insert rate" in html
    assert "Deletes start at 250,000 rows, within one report interval." in html


def test_the_entry_page_marks_where_deletes_begin_on_the_rate_curve(client):
    entry = submit(fifo_contest(), c_fifo_log())

    html = client.get(entry.get_absolute_url()).content.decode()

    assert 'data-deletes-start="250000"' in html
    assert "Rows deleted" in html and "250,000" in html
    assert "The dashed line marks where deletes begin" in html


def test_an_entry_breaking_a_track_rule_is_listed_as_not_ranked_with_the_reason(client):
    contest = fifo_contest()
    submit(contest, c_fifo_log(pace=0.5), name="Lagging")

    rows = not_ranked_rows(client.get(contest.get_absolute_url()))

    assert rows[0][1] == "Lagging"
    assert rows[0][-1].startswith("At 260,000 rows inserted, 5,000 were deleted")


def test_the_key_type_entry_page_draws_grouped_bars_with_the_ratios(client):
    contest = ContestFactory(workload=Workload.PK_TYPES, **OPEN)
    log = c_pk_run("autoinc", 60.0) + c_pk_run("uuid-char", 90.0) + c_pk_run("uuid-ordered", 45.0)
    entry = submit(contest, log)

    html = client.get(entry.get_absolute_url()).content.decode()

    plot = json.loads(html.split('id="track-plot-data" type="application/json">')[1].split("<")[0])
    assert plot["kind"] == "key_type_bars"
    assert plot["figures"]["ratios"] == {"uuid-char": 1.5, "uuid-ordered": 0.75}
    assert "/static/js/track-plot.js" in html
    assert "0.75\N{MULTIPLICATION SIGN}" in html and "1.50\N{MULTIPLICATION SIGN}" in html
    assert entry.track_metric == 0.75


def test_the_bulk_load_entry_page_compares_with_the_seeds_loads_of_its_class(client):
    contest = ContestFactory(workload=Workload.BULK_LOAD, track_rules={"min_rows": 1}, **OPEN)
    reference_rows.reference_results_create(contest=contest)
    entry = submit(contest, c_load_log(keys=4, row_length=64))

    html = client.get(entry.get_absolute_url()).content.decode()

    plot = json.loads(html.split('id="track-plot-data" type="application/json">')[1].split("<")[0])
    assert [reference["label"] for reference in plot["references"]] == [
        "TokuDB v3, keys=4, row length=64",
        "TokuDB v4, keys=4, row length=64",
    ]
    assert "keys=4, row length=64" in html
    entry.refresh_from_db()
    assert entry.eligible and entry.rank == 1


def test_the_crash_recovery_form_asks_for_the_declared_figures_and_no_log(client):
    contest = ContestFactory(workload=Workload.CRASH_RECOVERY, **OPEN)
    client.force_login(UserFactory())
    url = reverse("submission_create", args=[contest.slug])

    form = client.get(url).content.decode()
    response = client.post(url, {**DECLARED, **CRASH})

    assert "Recovery time (s)" in form and "Rows at the crash" in form
    entry = Submission.objects.get(contest=contest)
    assert response.status_code == 302
    assert entry.log_sha256 == "" and not entry.log
    assert entry.track_figures["recovery_seconds"] == 2.0
    page = client.get(entry.get_absolute_url()).content.decode()
    assert "none attached: the figures are declared by the entrant" in page
    assert client.get(reverse("submission_log", args=[entry.pk])).status_code == 404


def test_the_form_names_the_declared_figure_it_cannot_read(client):
    contest = ContestFactory(workload=Workload.CRASH_RECOVERY, **OPEN)
    client.force_login(UserFactory())

    response = client.post(
        reverse("submission_create", args=[contest.slug]),
        {**DECLARED, **CRASH, "recovery_seconds": ""},
    )

    assert response.status_code == 200
    assert Submission.objects.count() == 0
    assert "This field is required." in response.content.decode()


def test_a_track_that_reads_a_log_refuses_an_entry_without_one(client):
    contest = fifo_contest()
    client.force_login(UserFactory())

    response = client.post(reverse("submission_create", args=[contest.slug]), DECLARED)

    assert response.status_code == 200
    assert Submission.objects.count() == 0


def test_a_log_of_the_wrong_kind_for_the_track_is_refused_with_what_it_reads():
    contest = ContestFactory(workload=Workload.BULK_LOAD, **OPEN)

    with pytest.raises(refusals.SubmissionRefused) as refused:
        submit(contest, c_fifo_log())

    assert refused.value.message == (
        "Bulk loading reads the summary of `iibench load` (# summary ... mode=load); this log "
        "(iibench-c (this project's C benchmark)) has none."
    )


def test_many_entries_without_a_log_are_not_duplicates_of_each_other():
    contest = ContestFactory(workload=Workload.CRASH_RECOVERY, **OPEN)

    first = submit(contest, None, name="One", **CRASH)
    second = submit(contest, None, name="Two", **{**CRASH, "recovery_seconds": "3"})

    assert [Submission.objects.get(pk=entry.pk).rank for entry in (first, second)] == [1, 2]


def test_the_same_crash_log_twice_is_still_a_duplicate():
    contest = ContestFactory(workload=Workload.CRASH_RECOVERY, **OPEN)
    log = c_fifo_log()
    submit(contest, log, **CRASH)

    with pytest.raises(refusals.DuplicateLog):
        submit(contest, log, name="Again", **CRASH)


def api_client() -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=UserFactory())}")
    return client


def test_the_api_takes_declared_figures_and_returns_the_track_figures():
    contest = ContestFactory(workload=Workload.CRASH_RECOVERY, **OPEN)

    response = api_client().post(
        "/api/submissions/", {"contest": contest.slug, **DECLARED, **CRASH}, format="multipart"
    )

    assert response.status_code == 201, response.content
    summary = response.json()["summary"]
    assert summary["track_figures"] == {
        "insert_rate": 200.0,
        "rows_at_crash": 250_000,
        "recovery_seconds": 2.0,
        "engine": "InnoDB",
    }
    detail = APIClient().get(f"/api/submissions/{response.json()['id']}/").json()
    assert detail["summary"]["track_figures"]["recovery_seconds"] == 2.0


def test_the_api_names_the_missing_declared_figure():
    contest = ContestFactory(workload=Workload.CRASH_RECOVERY, **OPEN)
    declared = {**DECLARED, **CRASH}
    del declared["rows_at_crash"]

    response = api_client().post(
        "/api/submissions/", {"contest": contest.slug, **declared}, format="multipart"
    )

    assert response.status_code == 400
    assert response.json() == {"rows_at_crash": ["Rows at the crash: this track needs it."]}


def test_the_leaderboard_api_rows_carry_the_track_figures(client):
    contest = fifo_contest()
    submit(contest, c_fifo_log())

    row = client.get(f"/api/contests/{contest.slug}/leaderboard/").json()["results"][0]

    assert row["track_metric"] == 20_000.0
    assert row["track_figures"]["deletes_start_row"] == 250_000
    assert {"elapsed_seconds", "terminal_rate", "average_rate", "verified"} <= set(row)


def test_the_csv_download_adds_the_tracks_columns(client):
    contest = ContestFactory(workload=Workload.BULK_LOAD, track_rules={"min_rows": 1}, **OPEN)
    submit(contest, c_load_log(keys=1, row_length=64, rows=200_000, seconds=4.0))

    text = b"".join(client.get(reverse("leaderboard_csv", args=[contest.slug])).streaming_content)
    header, first = text.decode().splitlines()[:2]

    assert header.endswith("class,Rows/s,KV pairs/s,MB/s,Rows")
    assert first.endswith('"keys=1, row length=64",50000,50000,3.2,200000')


def test_editing_a_declared_figure_judges_the_entry_again(client):
    # Before the results are public: after, the change would wait for an organizer
    # (test_entry_edits).
    contest = ContestFactory(
        workload=Workload.CRASH_RECOVERY,
        results_published_at=timezone.now() + timedelta(days=1),
        **OPEN,
    )
    entry = submit(contest, None, **CRASH)
    client.force_login(entry.owner)

    response = client.post(
        reverse("submission_edit", args=[entry.pk]),
        {**DECLARED, **CRASH, "recovery_seconds": "5.5"},
    )

    assert response.status_code == 302
    entry.refresh_from_db()
    assert entry.track_declared["recovery_seconds"] == 5.5
    assert entry.track_metric == 5.5


def test_the_contest_api_states_the_track_rules(client):
    fifo_contest(slug="fifo-small")

    contest = next(
        c for c in client.get("/api/contests/").json()["results"] if c["slug"] == "fifo-small"
    )

    assert contest["rules"]["track_rules"] == {"delete_after": 250_000, "pace_tolerance": 0.01}


def test_the_board_columns_follow_the_track(client):
    contest = ContestFactory(workload=Workload.CRASH_RECOVERY, **OPEN)
    submit(contest, None, **CRASH)

    html = client.get(contest.get_absolute_url()).content.decode()
    cells = table_rows(html, "ranking")[0]["cells"]

    for label in ("Class", "Recovery", "Insert rate", "Rows at crash"):
        assert f">{label}" in html
    assert cells[2:] == [
        "100 to 1,000 rows/s, 100,000 to 1,000,000 rows at the crash",
        "Ada", "InnoDB", cells[5], "2 s", "200", "250,000", "",
    ]  # fmt: skip


def test_the_api_schema_documents_the_track_fields(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()

    create = schema["components"]["schemas"]["SubmissionCreate"]["properties"]
    assert {"query_series", "insert_rate", "rows_at_crash", "recovery_seconds"} <= set(create)
    assert "track_figures" in schema["components"]["schemas"]["Summary"]["properties"]


def test_a_track_board_page_takes_as_few_queries_as_a_classic_one(
    client, django_assert_max_num_queries
):
    contest = ContestFactory(workload=Workload.BULK_LOAD, track_rules={"min_rows": 1}, **OPEN)
    reference_rows.reference_results_create(contest=contest)
    for keys in (1, 4):
        submit(contest, c_load_log(keys=keys), name=f"Loader {keys}")

    # 9: the stamp, the contest, its references, the rules' current version, the count, the
    # page, the engines, the machines (the like-hardware filters' choices, read ahead with the
    # engines) and the live runs listed above the board; none grows with the entries' number.
    with django_assert_max_num_queries(9):
        response = client.get(contest.get_absolute_url())

    assert len(board_rows(response)) == 10


def test_my_entries_show_each_entrys_result_as_its_track_measures_it(client):
    contest = ContestFactory(workload=Workload.CRASH_RECOVERY, **OPEN)
    entry = submit(contest, None, **CRASH)
    client.force_login(entry.owner)

    page = client.get(reverse("my_entries")).content.decode()

    assert "recovery time 2 s" in page


def test_boards_without_rate_curves_offer_no_compare_checkboxes(client):
    loads = ContestFactory(workload=Workload.BULK_LOAD, track_rules={"min_rows": 1}, **OPEN)
    submit(loads, c_load_log())
    fifo = fifo_contest()
    submit(fifo, c_fifo_log())

    load_page = client.get(loads.get_absolute_url()).content.decode()
    fifo_page = client.get(fifo.get_absolute_url()).content.decode()

    assert 'name="ids"' not in load_page and "Compare selected" not in load_page
    assert 'name="ids"' in fifo_page and "Compare selected" in fifo_page
