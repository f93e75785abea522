"""Edits leave a trace. Seen: an owner changed the declared hardware after the results were
public, silently. Now every change is in the entry's history (who, when, what), the entry is
marked "edited" with a link to it, and after publication a change that moves a figure or a
verdict waits for an organizer while the public sees the published entry."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from submissions.entries import checks as entry_checks
from submissions.entries import services
from submissions.models import ChangeStatus, PendingChange, Submission
from testing.entries import upload
from testing.factories import StaffFactory

pytestmark = pytest.mark.django_db


def edit_form(submission: Submission, **changes) -> dict:
    declared = {**entry_checks.entry_declared(submission), **changes}
    data = {name: value for name, value in declared.items() if value is not None}
    for flag in ("publish", "direct_attached"):
        data[flag] = "on" if declared[flag] else ""
    return data


@pytest.fixture
def published(contest, entrant, declared):
    return services.entry_create(
        contest=contest, owner=entrant, declared=declared, log_file=upload()
    )


def test_an_edit_that_moves_no_figure_applies_at_once_and_is_in_the_history(
    client, entrant, published
):
    client.force_login(entrant)
    url = reverse("submission_edit", args=[published.pk])
    client.post(url, edit_form(published, cpu_model="Xeon X5470"))
    published.refresh_from_db()
    assert published.cpu_model == "Xeon X5470" and published.edited_at is not None
    client.logout()
    page = client.get(published.get_absolute_url()).content.decode()
    history_url = reverse("submission_history", args=[published.pk])
    assert f'href="{history_url}"' in page and "edited" in page
    history = client.get(history_url).content.decode()
    assert "cpu model: Xeon X5460 -&gt; Xeon X5470" in history
    assert "the entrant" in history


def test_after_publication_a_memory_change_waits_for_an_organizer(client, entrant, published):
    assert published.eligible
    client.force_login(entrant)
    response = client.post(
        reverse("submission_edit", args=[published.pk]),
        edit_form(published, memory_gb=32),
        follow=True,
    )
    assert "waits for an organizer" in response.content.decode()
    change = PendingChange.objects.get(submission=published, status=ChangeStatus.PENDING)
    assert "memory (GB): 16 -> 32" in change.changes
    assert any(effect.startswith("eligible: yes -> no") for effect in change.effects)
    client.logout()
    public = client.get(published.get_absolute_url()).content.decode()
    assert "16 GB" in public and "Eligible" in public
    assert "waits for an organizer" not in public  # the public sees the published entry only
    published.refresh_from_db()
    assert published.memory_gb == 16 and published.eligible and published.edited_at is None


def test_an_organizer_approves_and_the_entry_changes_with_its_verdict(client, entrant, published):
    services_owner = entrant
    client.force_login(services_owner)
    client.post(reverse("submission_edit", args=[published.pk]), edit_form(published, memory_gb=32))
    change = PendingChange.objects.get(submission=published)
    organizer = StaffFactory()
    client.force_login(organizer)
    page = client.get(published.get_absolute_url()).content.decode()
    assert "A change waits for an organizer" in page and "Approve" in page
    client.post(reverse("pending_change_decide", args=[change.pk, "approve"]))
    published.refresh_from_db()
    assert published.memory_gb == 32 and not published.eligible
    assert "over the limit of 16" in published.ineligible_reason
    client.logout()
    history = client.get(reverse("submission_history", args=[published.pk])).content.decode()
    assert "memory (GB): 16 -&gt; 32" in history
    assert f"approved by organizer {organizer.username}" in history


def test_a_rejected_change_leaves_the_published_entry(client, entrant, published):
    client.force_login(entrant)
    client.post(reverse("submission_edit", args=[published.pk]), edit_form(published, memory_gb=32))
    change = PendingChange.objects.get(submission=published)
    client.force_login(StaffFactory())
    client.post(reverse("pending_change_decide", args=[change.pk, "reject"]))
    change.refresh_from_db()
    published.refresh_from_db()
    assert change.status == ChangeStatus.REJECTED and published.memory_gb == 16


def test_an_entrant_cannot_approve_their_own_change(client, entrant, published):
    client.force_login(entrant)
    client.post(reverse("submission_edit", args=[published.pk]), edit_form(published, memory_gb=32))
    change = PendingChange.objects.get(submission=published)
    response = client.post(reverse("pending_change_decide", args=[change.pk, "approve"]))
    assert response.status_code == 404
    published.refresh_from_db()
    assert published.memory_gb == 16


def test_before_publication_an_edit_applies_and_is_rechecked(client, entrant, published):
    published.contest.results_published_at = timezone.now() + timedelta(days=3)
    published.contest.save()
    client.force_login(entrant)
    client.post(reverse("submission_edit", args=[published.pk]), edit_form(published, memory_gb=32))
    published.refresh_from_db()
    assert published.memory_gb == 32 and not published.eligible
    assert not PendingChange.objects.exists()


def test_the_api_answers_202_with_the_pending_change(client, entrant, published):
    client.force_login(entrant)
    response = client.patch(
        f"/api/submissions/{published.pk}/",
        data="memory_gb=32",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 202, response.content
    assert "memory (GB): 16 -> 32" in response.json()["pending_change"]["changes"]
    assert response.json()["eligible"] is True


def test_the_public_history_never_shows_the_entrants_address(client, entrant, published):
    client.force_login(entrant)
    client.post(
        reverse("submission_edit", args=[published.pk]),
        edit_form(published, email="new-address@example.org"),
    )
    client.logout()
    history = client.get(reverse("submission_history", args=[published.pk])).content.decode()
    assert "new-address@example.org" not in history and "ada@example.org" not in history
    assert "email: changed" in history
    client.force_login(entrant)
    own = client.get(reverse("submission_history", args=[published.pk])).content.decode()
    assert "new-address@example.org" in own


def test_an_organizers_edit_in_the_admin_is_in_the_history_and_judged_again(client, published):
    organizer = StaffFactory(is_superuser=True)
    client.force_login(organizer)
    url = reverse("admin:submissions_submission_change", args=[published.pk])
    form = client.get(url).context["adminform"].form
    data = {}
    for name, field in form.fields.items():
        value = field.prepare_value(form.initial.get(name, field.initial))
        if isinstance(value, bool):
            if value:
                data[name] = "on"
            continue
        data[name] = "" if value is None else value
    data.pop("submitted_at", None)
    local = timezone.localtime(published.submitted_at)
    data["submitted_at_0"], data["submitted_at_1"] = (
        local.date().isoformat(),
        local.time().isoformat(),
    )
    data["memory_gb"] = "32"
    response = client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    published.refresh_from_db()
    assert published.memory_gb == 32 and not published.eligible and published.edited_at
    history = client.get(reverse("submission_history", args=[published.pk])).content.decode()
    assert f"organizer {organizer.username}" in history and "memory (GB): 16 -&gt; 32" in history
