"""/compare/?ids=3,7: the rate curves of chosen entries overlaid, at an address to share."""

import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from submissions.tests.factories import (
    ContestFactory,
    SampleSeriesFactory,
    StaffFactory,
    SubmissionFactory,
)
from submissions.tests.pages import table_rows

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
    assert b"vendor/plotly.min.js" in response.content


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
