"""An entry's badge and figures.json, and a contest leader's badge: what other sites embed."""

import json
import xml.etree.ElementTree as ET
from datetime import timedelta

import pytest
from django.utils import timezone

from submissions.contests import ranks as contest_ranks
from testing.factories import ContestFactory, SubmissionFactory

pytestmark = pytest.mark.django_db

SVG = "{http://www.w3.org/2000/svg}"


def texts(response) -> list[str]:
    # Our own badge, parsed to read it as an SVG viewer would.
    tree = ET.fromstring(response.content)  # noqa: S314  # nosec B314
    return [node.text for node in tree.iter(f"{SVG}text")]


def test_an_entry_badge_shows_rank_terminal_rate_and_trust(client):
    contest = ContestFactory()
    entry = SubmissionFactory(contest=contest, storage_engine="TokuDB", terminal_rate=7_312.4)
    contest_ranks.contest_board_changed(contest_id=contest.pk)

    response = client.get(f"/entries/{entry.pk}/badge.svg")

    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml; charset=utf-8"
    assert texts(response) == [f"iiBench #{entry.pk} TokuDB", "#1 · 7,312 rows/s · self-reported"]


def test_markup_an_entrant_typed_is_text_in_the_badge(client):
    entry = SubmissionFactory(storage_engine='<script>alert(1)</script>"&')

    response = client.get(f"/entries/{entry.pk}/badge.svg")

    assert b"<script>" not in response.content
    assert texts(response)[0] == f'iiBench #{entry.pk} <script>alert(1)</script>"&'
    assert "default-src 'none'" in response["Content-Security-Policy"]


def test_badges_are_cacheable_and_revalidate_until_the_board_changes(client):
    contest = ContestFactory()
    entry = SubmissionFactory(contest=contest)
    first = client.get(f"/entries/{entry.pk}/badge.svg")

    again = client.get(f"/entries/{entry.pk}/badge.svg", HTTP_IF_NONE_MATCH=first["ETag"])
    contest.save()  # any change a page shows moves the board's version on
    changed = client.get(f"/entries/{entry.pk}/badge.svg", HTTP_IF_NONE_MATCH=first["ETag"])

    assert "public, max-age=" in first["Cache-Control"]
    assert again.status_code == 304
    assert changed.status_code == 200


def test_an_embargoed_entry_has_no_badge_and_no_figures_for_the_public(client):
    hidden = SubmissionFactory(
        contest=ContestFactory(results_published_at=timezone.now() + timedelta(days=3))
    )

    assert client.get(f"/entries/{hidden.pk}/badge.svg").status_code == 404
    assert client.get(f"/entries/{hidden.pk}/figures.json").status_code == 404


def test_the_figures_json_states_what_a_blog_post_quotes(client):
    entry = SubmissionFactory(rows=1_000_000_000, terminal_rate=404.0, estimated=False)

    body = json.loads(client.get(f"/entries/{entry.pk}/figures.json").content)

    assert body["id"] == entry.pk
    assert body["rows"] == 1_000_000_000
    assert body["terminal_rate"] == 404.0
    assert body["trust"] == "self-reported"
    assert body["badge"].endswith(f"/entries/{entry.pk}/badge.svg")
    assert body["url"].endswith(f"/entries/{entry.pk}/")


def test_a_contest_badge_names_its_leader_once_results_are_public(client):
    contest = ContestFactory(title="iiBench 2008")
    SubmissionFactory(contest=contest, entrant_name="Ada", publish=True, storage_engine="TokuDB")
    contest_ranks.contest_board_changed(contest_id=contest.pk)
    embargoed = ContestFactory(
        title="Next", results_published_at=timezone.now() + timedelta(days=1)
    )
    SubmissionFactory(contest=embargoed, entrant_name="Hidden", publish=True)
    contest_ranks.contest_board_changed(contest_id=embargoed.pk)

    public = texts(client.get(f"/contests/{contest.slug}/badge.svg"))
    hidden = texts(client.get(f"/contests/{embargoed.slug}/badge.svg"))

    assert public[0] == "iiBench 2008"
    assert public[1].startswith("leader Ada, TokuDB: ")
    assert hidden == ["Next", "no results yet"]


def test_the_entry_page_offers_the_badge_snippets_once_public(client):
    entry = SubmissionFactory()

    page = client.get(f"/entries/{entry.pk}/").content.decode()

    assert f'src="/entries/{entry.pk}/badge.svg"' in page
    assert f"[![iiBench entry #{entry.pk}](http://testserver/entries/{entry.pk}/badge.svg)]" in page
