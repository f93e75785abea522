"""The hostile corpus (hostile.py) through the REST API and through the web form: each request
gets a clear 4xx or the form again with an error naming the problem (the line, for a log), and
nothing is stored, no entry and no file; never a 500. The few that look hostile but are
legitimate (CRLF, a 2,000,000-line log, markup in the text fields, odd file names) are stored,
safely."""

import html
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote

import pytest
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from submissions.entries import services
from submissions.models import SampleSeries, Submission
from testing.entries import DECLARED, upload
from testing.factories import ContestFactory, UserFactory
from testing.hostile import (
    CORPUS,
    LONG_LOG_LINES,
    MISSING,
    SCRIPT,
    Hostile,
    request_body,
)

pytestmark = pytest.mark.django_db

CASES = [
    # The 2,000,000-line log is a minute's work: `make test-fast` leaves it to `make test`.
    pytest.param(
        case,
        channel,
        id=f"{case.id}-{channel}",
        marks=[pytest.mark.slow] if case.reports >= LONG_LOG_LINES else [],
    )
    for case in CORPUS
    for channel in case.channels
]


@pytest.fixture
def contests(db) -> dict:
    return {
        "open": ContestFactory(slug="open", target_rows=5_000_000),
        "closed": ContestFactory(slug="closed", deadline=timezone.now() - timedelta(days=1)),
    }


def media_files(settings) -> set[Path]:
    """The stored files, less the logs held for a retry of the form (submissions.entries.kept_logs):
    a log sent with a bad field is kept for its sender on purpose, never as an entry."""
    root = Path(settings.MEDIA_ROOT)
    if not root.exists():
        return set()
    return {
        path
        for path in root.rglob("*")
        if path.is_file() and "kept" not in path.relative_to(root).parts
    }


def send(case: Hostile, channel: str, entrant, client):
    slug = case.contest
    body, content_type = request_body(case, channel, slug)
    if channel == "api":
        api = APIClient()
        token, _ = Token.objects.get_or_create(user=entrant)
        api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        return api.post("/api/submissions/", data=body, content_type=content_type)
    client.force_login(entrant)
    # Built by hand: reverse() would refuse the slugs a hostile client types.
    return client.post(f"/contests/{quote(slug)}/submit/", data=body, content_type=content_type)


def what_the_user_reads(case: Hostile, channel: str, response) -> str:
    """The refusal as the user gets it: the API's messages for the field (or all of them), the
    form's errors for the field (or all of them) when they are on the page, or the page."""
    if channel == "api" and response["Content-Type"].startswith("application/json"):
        body = response.json()
        return str(body[case.error_field] if case.error_field else body)
    page = html.unescape(response.content.decode(errors="replace"))
    if response.status_code != 200:
        return page
    form = response.context["form"]
    if not case.error_field:
        errors = [error for field_errors in form.errors.values() for error in field_errors]
    elif case.error_field in form.fields:
        errors = form.errors.get(case.error_field, [])
    else:  # not a field of the form (the contest): the page says it
        return page
    return " ".join(error for error in errors if html.unescape(error) in page)


@pytest.mark.parametrize(("case", "channel"), CASES)
def test_hostile_input_gets_a_clear_answer_and_nothing_is_stored(
    case, channel, contests, entrant, client, settings
):
    for name, value in case.settings.items():
        setattr(settings, name, value)
    if case.existing:
        services.entry_create(
            contest=contests["open"],
            owner=UserFactory(),
            declared=dict(DECLARED),
            log_file=upload(case.log.content()),
        )
    entries_before, files_before = Submission.objects.count(), media_files(settings)

    response = send(case, channel, entrant, client)

    expected = case.api if channel == "api" else case.form
    assert response.status_code == expected, response.content[:2000]
    if case.stored:
        stored_safely(case, channel, response, client, settings)
        return
    assert case.phrase(channel) in what_the_user_reads(case, channel, response)
    assert Submission.objects.count() == entries_before
    assert SampleSeries.objects.count() == entries_before
    assert media_files(settings) == files_before


def stored_safely(case: Hostile, channel: str, response, client, settings) -> None:
    """One entry, its log under MEDIA_ROOT by its hash alone, its page showing text as text."""
    entry = Submission.objects.get()
    if channel == "api":
        assert response.json()["id"] == entry.pk
    else:
        assert response["Location"] == entry.get_absolute_url()
    root = Path(settings.MEDIA_ROOT).resolve()
    stored = Path(entry.log.path).resolve()
    assert media_files(settings) == {stored}
    assert stored.is_relative_to(root)
    assert stored.name in (f"{entry.log_sha256}.log", f"{entry.log_sha256}.gz")
    assert "/" not in entry.log_name and "\\" not in entry.log_name
    assert entry.log_name.isprintable() and 0 < len(entry.log_name) <= 200
    page = client.get(entry.get_absolute_url()).content.decode()
    if case.changes == SCRIPT:
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
        for text in SCRIPT.values():
            assert text not in page
    assert entry.series.count == case.reports


EDIT_CASES = [
    pytest.param(case, channel, id=f"{case.id}-{channel}")
    for case in CORPUS
    if case.changes
    and not case.stored
    and case.error_field in DECLARED
    and all(value is not MISSING for value in case.changes.values())
    for channel in case.channels
]


@pytest.mark.parametrize(("case", "channel"), EDIT_CASES)
def test_a_hostile_edit_is_refused_and_changes_nothing(case, channel, contests, entrant, client):
    entry = services.entry_create(
        contest=contests["open"], owner=entrant, declared=dict(DECLARED), log_file=upload()
    )
    before = Submission.objects.values(*DECLARED).get(pk=entry.pk)

    if channel == "api":
        api = APIClient()
        api.force_authenticate(entrant)
        body = {name: str(value) for name, value in case.changes.items()}
        response = api.patch(f"/api/submissions/{entry.pk}/", body, format="json")
        refusal = str(response.json().get(case.error_field))
    else:
        client.force_login(entrant)
        data = {name: value for name, value in DECLARED.items() if not isinstance(value, bool)}
        data.update(publish="on", direct_attached="on", **case.changes)
        response = client.post(f"/entries/{entry.pk}/edit/", data)
        refusal = " ".join(response.context["form"].errors.get(case.error_field, []))

    assert response.status_code == (400 if channel == "api" else 200)
    assert case.phrase(channel) in refusal
    assert Submission.objects.values(*DECLARED).get(pk=entry.pk) == before
