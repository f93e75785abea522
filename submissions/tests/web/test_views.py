"""What an entrant meets in the browser, through Django's test client."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from submissions.models import Submission
from testing.entries import upload
from testing.factories import ContestFactory, SubmissionFactory, UserFactory
from testing.logs import python_log

pytestmark = pytest.mark.django_db


def form_data(declared, log=None):
    data = {**declared, "log": log or upload()}
    data["publish"] = "on" if declared["publish"] else ""
    data["direct_attached"] = "on" if declared["direct_attached"] else ""
    return data


def test_sign_up_logs_the_new_entrant_in(client):
    response = client.post(
        reverse("signup"),
        {
            "username": "ada",
            "email": "ada@example.org",
            "password1": "x-Very-long-pw-9",
            "password2": "x-Very-long-pw-9",
        },
        follow=True,
    )
    assert response.status_code == 200
    assert response.context["user"].username == "ada"


def test_the_submit_page_asks_anonymous_visitors_to_log_in(client, contest):
    response = client.get(reverse("submission_create", args=[contest.slug]))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_submitting_lands_on_the_entry_page_with_figures_and_verdicts(
    client, contest, entrant, declared
):
    client.force_login(entrant)
    response = client.post(
        reverse("submission_create", args=[contest.slug]), form_data(declared), follow=True
    )
    entry = Submission.objects.get()
    assert response.redirect_chain[-1][0] == entry.get_absolute_url()
    page = response.content.decode()
    assert "5,000,000" in page
    assert "A commit every 1,000 rows." in page
    assert "Eligible" in page
    assert 'id="rate-curve"' in page


def test_a_refused_log_shows_the_line_in_the_form_and_stores_nothing(
    client, contest, entrant, declared
):
    client.force_login(entrant)
    bad = python_log().replace(b"3000000 ", b"1000000 ", 1)
    response = client.post(
        reverse("submission_create", args=[contest.slug]), form_data(declared, upload(bad))
    )
    assert response.status_code == 200
    assert "line 4" in response.content.decode()
    assert Submission.objects.count() == 0


def test_a_duplicate_log_links_to_the_existing_entry(client, contest, entrant, declared):
    client.force_login(entrant)
    client.post(reverse("submission_create", args=[contest.slug]), form_data(declared))
    first = Submission.objects.get()
    response = client.post(reverse("submission_create", args=[contest.slug]), form_data(declared))
    assert f'href="{first.get_absolute_url()}"' in response.content.decode()
    assert Submission.objects.count() == 1


def test_the_solution_description_is_rendered_without_script(client, contest):
    entry = SubmissionFactory(
        contest=contest,
        solution_description='**fast** <script>alert("x")</script> <img src=x onerror=alert(1)>',
        entrant_name="<b>Mallory</b>",
    )
    page = client.get(entry.get_absolute_url()).content.decode()
    assert "<strong>fast</strong>" in page
    assert "<script>alert" not in page
    assert "onerror" not in page
    assert "&lt;b&gt;Mallory&lt;/b&gt;" in page


def test_an_anonymous_entry_hides_the_name_from_the_public(client, contest):
    entry = SubmissionFactory(contest=contest, publish=False, entrant_name="Secret Person")
    page = client.get(entry.get_absolute_url()).content.decode()
    assert "Anonymous entrant" in page
    assert "Secret Person" not in page


def test_the_original_log_downloads_as_uploaded(client, contest, entrant, declared):
    client.force_login(entrant)
    client.post(reverse("submission_create", args=[contest.slug]), form_data(declared))
    entry = Submission.objects.get()
    response = client.get(reverse("submission_log", args=[entry.pk]))
    assert b"".join(response.streaming_content) == python_log()
    assert "attachment" in response["Content-Disposition"]


def test_someone_elses_draft_is_not_found(client, entrant):
    draft = SubmissionFactory(contest=ContestFactory(results_published_at=None))
    client.force_login(entrant)
    assert client.get(draft.get_absolute_url()).status_code == 404
    assert client.get(reverse("submission_log", args=[draft.pk])).status_code == 404


def test_the_owner_edits_until_the_deadline(client, entrant):
    contest = ContestFactory(deadline=timezone.now() + timedelta(days=1))
    entry = SubmissionFactory(contest=contest, owner=entrant)
    client.force_login(entrant)
    assert client.get(reverse("submission_edit", args=[entry.pk])).status_code == 200
    contest.deadline = timezone.now() - timedelta(seconds=1)
    contest.save()
    assert client.get(reverse("submission_edit", args=[entry.pk])).status_code == 403


def test_another_entrant_cannot_edit_or_delete(client, contest):
    entry = SubmissionFactory(contest=contest)
    client.force_login(UserFactory())
    assert client.get(reverse("submission_edit", args=[entry.pk])).status_code == 403
    assert client.post(reverse("submission_delete", args=[entry.pk])).status_code == 403
    assert Submission.objects.filter(pk=entry.pk).exists()


def test_a_closed_contest_takes_no_more_entries(client, entrant, declared):
    closed = ContestFactory(deadline=timezone.now() - timedelta(days=1))
    client.force_login(entrant)
    page = client.get(reverse("submission_create", args=[closed.slug])).content.decode()
    assert "takes no more entries" in page
    client.post(reverse("submission_create", args=[closed.slug]), form_data(declared))
    assert Submission.objects.count() == 0


def test_my_entries_lists_only_mine(client, contest, entrant):
    mine = SubmissionFactory(contest=contest, owner=entrant)
    theirs = SubmissionFactory(contest=contest)
    client.force_login(entrant)
    page = client.get(reverse("my_entries")).content.decode()
    assert f"#{mine.pk}<" in page
    assert f"#{theirs.pk}<" not in page


def test_an_upload_over_the_cap_gets_a_page_leading_back_to_the_form(
    client, contest, entrant, declared, settings
):
    settings.LOG_UPLOAD_MAX_BYTES = 1024
    client.force_login(entrant)
    url = reverse("submission_create", args=[contest.slug])
    response = client.post(url, form_data(declared, upload(b"x" * (2 << 20))))
    page = response.content.decode()
    assert response.status_code == 413
    assert "logs are limited to 1,024 bytes" in page
    # A javascript: link would be blocked by the Content-Security-Policy: a plain one works.
    assert f'<a href="{url}">Back to the form</a>' in page
    assert "javascript:" not in page


def test_an_edit_whose_stored_log_no_longer_passes_says_why_and_saves_nothing(
    client, entrant, declared
):
    # A log the parser of the day refuses (stricter than when it was stored): here, not a log.
    entry = SubmissionFactory(owner=entrant, contest=ContestFactory(), entrant_name="Ada")
    client.force_login(entrant)
    response = client.post(
        reverse("submission_edit", args=[entry.pk]), {**form_data(declared), "entrant_name": "Eve"}
    )
    assert response.status_code == 200
    assert "line 1: not an iiBench log" in response.content.decode()
    entry.refresh_from_db()
    assert entry.entrant_name == "Ada"
