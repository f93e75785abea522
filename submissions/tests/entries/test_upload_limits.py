"""A log longer than the registry keeps is refused whole, naming the limit: memory stays bounded
whatever the log's length."""

import pytest

from submissions.models import SampleSeries, Submission
from testing.api import post_entry, token_client
from testing.entries import upload
from testing.logs import python_log

pytestmark = pytest.mark.django_db


def test_a_log_with_more_reports_than_kept_is_a_413_naming_the_limit(
    contest, entrant, declared, settings
):
    settings.LOG_MAX_REPORTS = 3
    # Five reports, one every 1,000,000 rows; the first is on line 2 (after the header).
    response = post_entry(
        token_client(entrant), contest, declared, upload(python_log(rows=5_000_000))
    )
    assert response.status_code == 413
    message = response.json()["log"][0]
    assert "more than 3 report lines" in message
    assert "LOG_MAX_REPORTS" in message
    assert "line 5" in message  # the fourth report, the first past the limit
    assert Submission.objects.count() == 0
    assert SampleSeries.objects.count() == 0


def test_a_log_at_the_limit_is_stored(contest, entrant, declared, settings):
    settings.LOG_MAX_REPORTS = 5
    response = post_entry(
        token_client(entrant), contest, declared, upload(python_log(rows=5_000_000))
    )
    assert response.status_code == 201
    assert Submission.objects.get().series.count == 5
