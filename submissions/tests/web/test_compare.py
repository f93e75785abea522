"""/compare/?ids=3,7: the rate curves of chosen entries overlaid, at an address to share."""

import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from submissions.contests import ranks as contest_ranks
from testing.factories import (
    ContestFactory,
    ReferenceResultFactory,
    SampleSeriesFactory,
    StaffFactory,
    SubmissionFactory,
)
from testing.pages import table_rows

pytestmark = pytest.mark.django_db


def compare(client, query):
    return client.get(f"/compare/{query}")


def plotted(response) -> list[dict]:
    match = re.search(
        rb'<script id="compare-data" type="application/json">(.*?)</script>', response.content
    )
    if not match:
        return []
    return [item for item in json.loads(match.group(1))["items"] if item["curves"]]


def listed(response) -> list[str]:
    return [row["cells"][0] for row in table_rows(response.content.decode(), "data")]


def test_it_overlays_the_interval_rate_of_each_chosen_entry(client):
    innodb = SampleSeriesFactory(
        submission=SubmissionFactory(storage_engine="InnoDB", entrant_name="Ann"), count=200
    )
    tokudb = SampleSeriesFactory(
        submission=SubmissionFactory(storage_engine="TokuDB", publish=False), count=300
    )
    ids = f"{tokudb.submission_id},{innodb.submission_id}"

    response = compare(client, f"?ids={ids}")
    curves = plotted(response)

    assert response.status_code == 200
    assert [curve["label"] for curve in curves] == [
        f"#{tokudb.submission_id} TokuDB (Anonymous entrant)",
        f"#{innodb.submission_id} InnoDB (Ann)",
    ]
    interval = curves[1]["curves"]["interval"]
    assert (interval["x"], interval["y"]) == (
        innodb.preview["interval_rate"]["x"],
        innodb.preview["interval_rate"]["y"],
    )
    assert len(curves[0]["curves"]["interval"]["x"]) == 300
    assert b"vendor/plotly-basic.min.js" in response.content


def test_it_turns_ticked_checkboxes_into_the_short_address_to_share(client):
    response = compare(client, "?ids=7&ids=3&ids=7")

    assert response.status_code == 302
    assert response["Location"] == "/compare/?ids=7,3"


def test_it_leaves_out_entries_the_visitor_may_not_see_and_says_so(client):
    public = SampleSeriesFactory().submission
    embargoed = SubmissionFactory(
        contest=ContestFactory(results_published_at=timezone.now() + timedelta(days=1)),
        entrant_name="Secret",
    )
    SampleSeriesFactory(submission=embargoed)

    response = compare(client, f"?ids={public.pk},{embargoed.pk},999999")

    assert listed(response) == [f"#{public.pk}"]
    assert len(plotted(response)) == 1
    assert f"Left out: #{embargoed.pk}, #999999".encode() in response.content
    assert b"Secret" not in response.content


def test_it_shows_organizers_embargoed_entries_too(client):
    embargoed = SubmissionFactory(contest=ContestFactory(results_published_at=None))
    client.force_login(StaffFactory())

    assert listed(compare(client, f"?ids={embargoed.pk}")) == [f"#{embargoed.pk}"]


def test_it_lists_an_entry_without_a_series_but_draws_no_curve_for_it(client):
    entry = SubmissionFactory()

    response = compare(client, f"?ids={entry.pk}")

    assert listed(response) == [f"#{entry.pk}"]
    assert plotted(response) == []


def test_it_caps_the_entries_it_overlays(client):
    entries = SubmissionFactory.create_batch(13)
    ids = ",".join(str(entry.pk) for entry in entries)

    response = compare(client, f"?ids={ids}")

    assert len(listed(response)) == 12
    assert f"left out: #{entries[-1].pk}".encode() in response.content


def test_it_explains_how_to_choose_when_nothing_is_chosen(client):
    response = compare(client, "")

    assert response.status_code == 200
    assert b"Compare selected" in response.content


def compare_data(response) -> dict:
    match = re.search(
        rb'<script id="compare-data" type="application/json">(.*?)</script>', response.content
    )
    return json.loads(match.group(1))


def test_every_figure_shows_as_a_ratio_to_the_baseline_reference(client):
    contest = ContestFactory()
    innodb = ReferenceResultFactory(contest=contest, terminal_rate=404.0)
    entry = SubmissionFactory(contest=contest, terminal_rate=7_312.4, seconds_to_target=86_400.0)
    SampleSeriesFactory(submission=entry)

    response = compare(client, f"?ids={entry.pk}&refs={innodb.pk}&base=r{innodb.pk}")
    rows = table_rows(response.content.decode(), "data")

    assert response.status_code == 200
    assert [row["cells"][0] for row in rows] == [f"#{entry.pk}", "reference"]
    assert "18.1x" in rows[0]["cells"][8]  # terminal rate 7,312 against 404
    assert rows[1]["cells"][10] == "baseline"
    assert b"ratio-better-3" in response.content
    assert [item["kind"] for item in compare_data(response)["items"]] == ["entry", "reference"]


def test_the_curves_carry_elapsed_seconds_for_the_time_axis(client):
    series = SampleSeriesFactory(count=100)

    data = compare_data(compare(client, f"?ids={series.submission_id}&x=time"))
    interval = data["items"][0]["curves"]["interval"]

    assert data["state"]["x"] == "time"
    assert len(interval["t"]) == len(interval["x"]) == 100
    assert interval["t"] == sorted(interval["t"]) and interval["t"][-1] > 0


def test_the_view_state_in_the_address_is_kept_in_its_short_form(client):
    a, b = SubmissionFactory.create_batch(2)

    response = compare(client, f"?ids={a.pk}&ids={b.pk}&x=time&zoom=terminal&ylog=on&base=e{b.pk}")

    assert response.status_code == 302
    assert response["Location"] == (
        f"/compare/?ids={a.pk},{b.pk}&base=e{b.pk}&x=time&zoom=terminal&ylog=1"
    )
    assert compare(client, response["Location"].removeprefix("/compare/")).status_code == 200


def test_entries_grouped_as_repeats_draw_one_band_and_state_their_spread(client):
    contest = ContestFactory()
    runs = []
    for terminal in (1_000.0, 1_100.0, 1_050.0):
        entry = SubmissionFactory(contest=contest, terminal_rate=terminal)
        SampleSeriesFactory(submission=entry, count=80)
        runs.append(entry.pk)
    ids = ",".join(map(str, runs))

    response = compare(client, f"?ids={ids}&repeat={runs[0]}&repeat={runs[1]}&repeat={runs[2]}")
    grouped = compare(client, response["Location"].removeprefix("/compare/"))
    data = compare_data(grouped)

    assert response["Location"] == f"/compare/?ids={ids}&group={ids}"
    assert [band["members"] for band in data["bands"]] == [runs]
    assert set(data["bands"][0]["variants"]) == {
        "interval-rows",
        "interval-time",
        "cumulative-rows",
        "cumulative-time",
    }
    assert all(item["grouped"] for item in data["items"])
    assert b"terminal rates spread 9.5%" in grouped.content


def test_the_board_offers_its_reference_rows_for_comparison_too(client):
    contest = ContestFactory()
    entry = SubmissionFactory(contest=contest)
    reference = ReferenceResultFactory(contest=contest, label="Tokutek InnoDB 2008")
    contest_ranks.contest_board_changed(contest_id=contest.pk)

    board = client.get(contest.get_absolute_url()).content.decode()
    response = compare(client, f"?ids={entry.pk}&refs={reference.pk}")

    assert f'name="refs" value="{reference.pk}"' in board
    assert listed(response) == [f"#{entry.pk}", "reference"]
    assert b"Tokutek InnoDB 2008" in response.content
