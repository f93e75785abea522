"""The API's list of entries writes its rows plainly (serializers.plain_writer) from the columns
it shows (api.API_LIST_FIELDS), not through DRF's per-field machinery over whole entries
(issue 44): a client reads the same JSON as SubmissionSerializer writes of the entry read
whole, in one query for the page, whatever its entries hold (a streamed run, verdicts, a
verification, an edit, missing figures)."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from submissions.live.models import LiveRun
from submissions.models import Submission
from submissions.web.serializers import SubmissionSerializer
from testing.factories import ContestFactory, SubmissionFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def entries():
    contest = ContestFactory()
    now = timezone.now()
    plain = SubmissionFactory(contest=contest, submitted_at=now)
    verified = SubmissionFactory(
        contest=contest,
        verified=True,
        verification_headline="Reproduced at 1/10.",
        verification_at=now,
        submitted_at=now - timedelta(hours=1),
    )
    edited = SubmissionFactory(
        contest=contest,
        verification="reproduced",
        verification_at=now - timedelta(days=2),
        setup_edited_at=now - timedelta(days=1),
        edited_at=now - timedelta(days=1),
        terminal_rate=None,
        seconds_to_target=None,
        db_size_bytes=123_456_789,
        verdicts=[
            {"rule": "rows", "status": "pass", "message": "1B rows.", "line": 12},
            {"rule": "cores", "status": "warn", "message": "No cores line.", "line": None},
        ],
        submitted_at=now - timedelta(hours=2),
    )
    streamed = SubmissionFactory(contest=contest, submitted_at=now - timedelta(hours=3))
    LiveRun.objects.create(
        contest=contest,
        owner=UserFactory(),
        run_key="run-1",
        command="iibench --rows 1000000000",
        witnessed=True,
        sealed_at=now,
        seal_verdicts=[{"rule": "sealed", "status": "pass", "message": "ok"}],
        submission=streamed,
    )
    return [plain, verified, edited, streamed]


def whole(ids: list[int]) -> list[dict]:
    """SubmissionSerializer's rows of the entries read whole, as the list read them before."""
    request = Request(APIRequestFactory().get("/api/submissions/"))
    rows = Submission.objects.select_related("contest", "live_run", "rules_version")
    found = {entry.pk: entry for entry in rows.filter(pk__in=ids)}
    return SubmissionSerializer(
        [found[pk] for pk in ids], many=True, context={"request": request}
    ).data


def test_the_list_writes_what_the_serializer_writes_of_whole_entries(entries):
    client = Client()
    with CaptureQueriesContext(connection) as queries:
        answer = client.get("/api/submissions/")
    assert answer.status_code == 200
    results = answer.json()["results"]
    assert [row["id"] for row in results] == [entry.pk for entry in entries]
    assert results == whole([entry.pk for entry in entries])
    # The page in one query: a column the list shows but does not read would be read once a row.
    assert len(queries.captured_queries) == 1
    streamed = results[3]
    assert streamed["live"] == "sealed" and streamed["trust"] != results[0]["trust"]
    assert results[2]["verdicts"][1] == {
        "rule": "cores", "status": "warn", "message": "No cores line.", "line": None
    }  # fmt: skip
