"""GET /api/submissions/{id}/samples/: the full series, as JSON columns or as CSV."""

import csv
import io
import json
from datetime import timedelta

import numpy as np
import pytest
from django.utils import timezone

from submissions.measures.series import pack_columns
from testing.factories import (
    ContestFactory,
    SampleSeriesFactory,
    StaffFactory,
    SubmissionFactory,
    rate_columns,
)

pytestmark = pytest.mark.django_db


def samples(client, entry, query=""):
    return client.get(f"/api/submissions/{entry.pk}/samples/{query}")


def body_of(response) -> bytes:
    return b"".join(response.streaming_content)


def test_it_returns_every_sample_as_json_columns(client):
    series = SampleSeriesFactory(count=3)
    columns = rate_columns(3)

    response = samples(client, series.submission)
    body = json.loads(body_of(response))

    assert response["Content-Type"] == "application/json"
    assert body["id"] == series.submission_id
    assert body["count"] == 3
    assert list(body["columns"]) == ["rows", "seconds", "interval_rate", "cumulative_rate", "line"]
    assert body["columns"]["rows"] == [1_000_000, 2_000_000, 3_000_000]
    assert body["columns"]["interval_rate"] == columns["interval_rate"].tolist()
    assert body["columns"]["seconds"] == columns["seconds"].tolist()


def test_it_returns_every_sample_as_csv(client):
    series = SampleSeriesFactory(count=4)
    columns = rate_columns(4)

    response = samples(client, series.submission, "?format=csv")
    rows = list(csv.DictReader(io.StringIO(body_of(response).decode())))

    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert f"entry-{series.submission_id}-samples.csv" in response["Content-Disposition"]
    assert len(rows) == 4
    assert rows[3]["rows"] == "4000000"
    assert float(rows[3]["cumulative_rate"]) == columns["cumulative_rate"][3]
    assert rows[0]["line"] == "2"


def test_it_streams_a_long_series_in_chunks_never_as_one_string(client):
    count = 120_000
    columns = rate_columns(count, every=500)
    series = SampleSeriesFactory(count=count, columns=pack_columns(columns), preview={})

    response = samples(client, series.submission, "?format=csv")
    chunks = list(response.streaming_content)

    assert response.streaming
    assert len(chunks) > 2
    assert max(len(chunk) for chunk in chunks) < 4 * 1024 * 1024
    lines = b"".join(chunks).split(b"\r\n")
    assert len(lines) == count + 2  # header, the samples, the empty string after the last \r\n
    assert lines[-2].startswith(b"60000000,")


def test_it_writes_json_null_where_a_value_is_not_a_number(client):
    columns = rate_columns(2)
    columns["interval_rate"] = np.array([np.nan, 5.0])
    series = SampleSeriesFactory(count=2, columns=pack_columns(columns))

    body = json.loads(body_of(samples(client, series.submission)))

    assert body["columns"]["interval_rate"] == [None, 5.0]


def test_it_includes_the_delete_columns_when_the_run_deleted(client):
    columns = rate_columns(4, deletes=True)
    series = SampleSeriesFactory(count=4, columns=pack_columns(columns))

    body = json.loads(body_of(samples(client, series.submission)))

    assert body["columns"]["deleted"] == columns["deleted"].tolist()
    assert "interval_delete_rate" in body["columns"]


def test_it_refuses_the_samples_of_an_embargoed_entry_to_the_public(client):
    contest = ContestFactory(results_published_at=timezone.now() + timedelta(days=1))
    series = SampleSeriesFactory(submission=SubmissionFactory(contest=contest))

    # 404, as for an entry that never existed: a 403 would tell that it exists.
    assert samples(client, series.submission).status_code == 404
    assert samples(client, series.submission, "?format=csv").status_code == 404
    client.force_login(StaffFactory())
    assert samples(client, series.submission).status_code == 200


def test_it_shows_an_entrant_the_samples_of_their_embargoed_entry(client):
    contest = ContestFactory(results_published_at=None)
    series = SampleSeriesFactory(submission=SubmissionFactory(contest=contest))
    client.force_login(series.submission.owner)

    assert samples(client, series.submission).status_code == 200


def test_it_answers_404_for_an_entry_without_samples(client):
    entry = SubmissionFactory()

    response = samples(client, entry)

    assert response.status_code == 404
    assert response.json() == {"detail": "This entry has no sample series."}
