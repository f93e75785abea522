"""The data migration that re-judged the reruns stored before verification meant verified."""

import importlib

import pytest
from django.apps import apps

from runner.models import RerunStatus, VerificationRun
from submissions.models import Submission
from testing.factories import SubmissionFactory
from testing.reruns import track_entry

pytestmark = pytest.mark.django_db

rejudge = importlib.import_module("runner.migrations.0004_verdict_vocabulary").rejudge


def old_run(entry, target: str, verdict: str, rows: int = 1_000_000) -> VerificationRun:
    return VerificationRun.objects.create(
        submission=entry, target=target, rows_target=rows, status=RerunStatus.SUCCEEDED,
        verdict=verdict, ratio=1.76, message="ratio 1.76: reproduced.",
    )  # fmt: skip


def test_old_verdicts_are_mapped_honestly_and_verified_follows_them():
    on_postgresql = SubmissionFactory(storage_engine="InnoDB", verified=True)
    engines = old_run(on_postgresql, "postgresql", "reproduced")
    prefix_entry = SubmissionFactory(storage_engine="InnoDB", verified=True)
    prefix = old_run(prefix_entry, "mariadb", "reproduced")
    fifo = track_entry("fifo", {"terminal_insert_rate": 204.0})  # an InnoDB entry
    Submission.objects.filter(pk=fifo.pk).update(verification="reproduced")
    scaled = old_run(fifo, "mariadb", "reproduced", rows=20_000)
    untouched = SubmissionFactory(verified=True)  # no rerun: an organizer's own mark stays

    rejudge(apps, None)

    engines.refresh_from_db()
    assert engines.verdict == "comparison"
    assert engines.message.startswith(
        "Judged before verification meant verified: reproduced. Re-judged: a comparison run "
        "(postgresql target, the entry's engine is InnoDB)"
    )
    assert engines.message.endswith("ratio 1.76: reproduced.")
    prefix.refresh_from_db()
    assert prefix.verdict == "inconclusive"
    assert "first 1,000,000 rows at the server's own memory" in prefix.message
    scaled.refresh_from_db()
    assert scaled.verdict == "reproduced"
    verified = {entry.pk: entry.verified for entry in Submission.objects.all()}
    assert verified[on_postgresql.pk] is False
    assert verified[prefix_entry.pk] is False
    assert verified[fifo.pk] is True
    assert verified[untouched.pk] is True
    assert Submission.objects.get(pk=fifo.pk).verification == "reproduced"
