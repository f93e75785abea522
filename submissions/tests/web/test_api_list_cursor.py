"""The registry's API list reads numbered pages down to the boards' deepest row and a cursor
past it (issue 44): a deep page is read from the newest-first index whatever its depth, never
after an OFFSET over the entries before it. Walking the `next` links returns every entry once,
newest first, ties in time by id. The depth is made small here (DEEPEST_ROW)."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from submissions.board import query as board_query
from submissions.contests.ranks import contest_board_changed
from submissions.models import Submission
from testing.factories import SubmissionFactory

pytestmark = pytest.mark.django_db

DEPTH = 100  # two numbered pages of 50


def grow(upto: int) -> None:
    template = Submission.objects.order_by("pk").first() or SubmissionFactory()
    fields = [f for f in Submission._meta.concrete_fields if not f.primary_key]
    moment = timezone.now()
    copies = []
    for number in range(Submission.objects.count(), upto):
        values = {field.attname: getattr(template, field.attname) for field in fields}
        # Three entries a minute: ties in time that only the id orders.
        values.update(
            log_sha256=f"{number:064x}", submitted_at=moment - timedelta(minutes=number // 3)
        )
        copies.append(Submission(**values))
    Submission.objects.bulk_create(copies)
    contest_board_changed(contest_id=template.contest_id)


def walk(client: Client) -> tuple[list[int], list[str]]:
    ids, links, url = [], [], "/api/submissions/"
    while url:
        answer = client.get(url)
        assert answer.status_code == 200, url
        body = answer.json()
        assert body["count"] is None
        ids += [row["id"] for row in body["results"]]
        url = body["next"]
        links.append(url or "")
    return ids, links


def test_walking_next_returns_every_entry_once_newest_first(monkeypatch):
    monkeypatch.setattr(board_query, "DEEPEST_ROW", DEPTH)
    grow(230)
    ids, links = walk(Client())
    newest = Submission.objects.order_by("-submitted_at", "-pk").values_list("pk", flat=True)
    assert ids == list(newest)
    assert links[0].endswith("?page=2") and "after=" in links[1] and links[-1] == ""


def test_a_numbered_page_past_the_depth_says_to_follow_next(monkeypatch):
    monkeypatch.setattr(board_query, "DEEPEST_ROW", DEPTH)
    grow(160)
    answer = Client().get("/api/submissions/?page=3")
    assert answer.status_code == 404 and "follow the last one's `next`" in answer.json()["detail"]
    for bad in ("yesterday_3", "2026-01-01T00:00:00_x", "2026-01-01T00:00:00_3", "_"):
        answer = Client().get("/api/submissions/", {"after": bad})
        assert answer.status_code == 404 and "Invalid cursor" in answer.json()["detail"]


def test_a_cursor_page_reads_as_many_queries_at_two_sizes_and_no_offset(monkeypatch):
    monkeypatch.setattr(board_query, "DEEPEST_ROW", DEPTH)
    client = Client()
    counts = []
    for size in (160, 320):
        grow(size)
        deep = client.get("/api/submissions/?page=2").json()["next"]
        with CaptureQueriesContext(connection) as queries:
            assert client.get(deep).status_code == 200
        counts.append(len(queries.captured_queries))
        assert not any("OFFSET" in query["sql"] for query in queries.captured_queries)
    assert counts[0] == counts[1]
