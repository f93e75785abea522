"""A run is one entry: the same samples sent again with other bytes are refused, naming the
first entry; a different run is not."""

import importlib

import pytest
from django.apps import apps
from django.urls import reverse
from rest_framework.test import APIClient

from submissions.entries import services
from submissions.models import SampleSeries, Submission
from testing.entries import upload
from testing.logs import gzipped, python_log

pytestmark = pytest.mark.django_db

RUN = python_log()
SAME_RUN_OTHER_BYTES = {
    "crlf": RUN.replace(b"\n", b"\r\n"),
    "blank lines": RUN.replace(b"\n", b"\n\n", 3),
    "trailing whitespace": RUN.replace(b"\n", b"   \n"),
    "gzip": gzipped(RUN),
    "re-gzipped at another level": __import__("gzip").compress(RUN, compresslevel=1),
    "trailing newlines": RUN + b"\n\n",
}


@pytest.mark.parametrize("variant", sorted(SAME_RUN_OTHER_BYTES))
def test_the_same_run_in_other_bytes_is_refused_naming_the_first(
    variant, contest, entrant, declared
):
    first = services.entry_create(
        contest=contest, owner=entrant, declared=declared, log_file=upload(RUN)
    )
    name = "run.log.gz" if "gzip" in variant else "run.log"
    api = APIClient()
    api.force_authenticate(entrant)
    response = api.post(
        "/api/submissions/",
        {"contest": contest.slug, **declared, "log": upload(SAME_RUN_OTHER_BYTES[variant], name)},
        format="multipart",
    )
    assert response.status_code == 400
    message = response.json()["log"][0]
    assert f"already submitted to this contest as entry #{first.pk}" in message
    assert message.endswith(f"/entries/{first.pk}/")
    assert Submission.objects.count() == 1


def test_the_form_links_the_refusal_to_the_first_entry(client, contest, entrant, declared):
    first = services.entry_create(
        contest=contest, owner=entrant, declared=declared, log_file=upload(RUN)
    )
    client.force_login(entrant)
    page = client.post(
        reverse("submission_create", args=[contest.slug]),
        {**declared, "publish": "on", "direct_attached": "on", "log": upload(RUN + b"\n\n")},
    )
    assert page.status_code == 200
    assert f'<a href="/entries/{first.pk}/">entry #{first.pk}</a>' in page.content.decode()
    assert Submission.objects.count() == 1


def test_a_different_run_is_a_new_entry(contest, entrant, declared):
    services.entry_create(contest=contest, owner=entrant, declared=declared, log_file=upload(RUN))
    other = python_log(rates=[100_000 / (1 + i) + 1 for i in range(5)])
    services.entry_create(contest=contest, owner=entrant, declared=declared, log_file=upload(other))
    assert Submission.objects.count() == 2


def test_the_migration_fingerprints_stored_runs_and_keeps_a_stored_copy_unfingerprinted(
    contest, entrant, declared
):
    first = services.entry_create(
        contest=contest, owner=entrant, declared=declared, log_file=upload(RUN)
    )
    fingerprint = first.run_fingerprint
    copy = services.entry_create(
        contest=contest, owner=entrant, declared=declared, log_file=upload(python_log(6_000_000))
    )
    # As before the migration: no fingerprints, and a copy of the first run stored twice.
    Submission.objects.update(run_fingerprint="")
    stored = SampleSeries.objects.values_list("columns", flat=True).get(submission=first)
    SampleSeries.objects.filter(submission=copy).update(columns=stored)
    migration = importlib.import_module("submissions.migrations.0009_run_fingerprint")
    migration.fingerprint_existing(apps, None)
    first.refresh_from_db()
    copy.refresh_from_db()
    assert first.run_fingerprint == fingerprint
    assert copy.run_fingerprint == ""
