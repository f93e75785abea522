"""An entry under embargo does not exist for those who may not see it. Seen: 403, which tells
that it exists. Every URL of an entry answers 404 to a visitor and to another entrant, exactly
as for an entry that never existed; its owner and organizers see it."""

from datetime import timedelta

import pytest
from django.utils import timezone

from runner.models import VerificationRun
from submissions.entries import services
from testing.entries import upload
from testing.factories import ContestFactory, StaffFactory, UserFactory

pytestmark = pytest.mark.django_db

ENTRY_URLS = (
    "/entries/{pk}/",
    "/entries/{pk}/log/",
    "/entries/{pk}/history/",
    "/api/submissions/{pk}/",
    "/api/submissions/{pk}/samples/",
    "/api/submissions/{pk}/samples/?format=csv",
)
RERUN_URLS = (
    "/reruns/{pk}/", "/reruns/{pk}/log/", "/api/reruns/{pk}/", "/api/reruns/{pk}/samples/",
)  # fmt: skip


@pytest.fixture
def draft(entrant, declared):
    contest = ContestFactory(results_published_at=timezone.now() + timedelta(days=7))
    return services.entry_create(
        contest=contest, owner=entrant, declared=declared, log_file=upload()
    )


@pytest.fixture
def draft_rerun(draft):
    return VerificationRun.objects.create(submission=draft, target="sqlite", rows_target=1000)


@pytest.mark.parametrize("who", ["visitor", "another entrant"])
def test_every_url_of_an_entry_under_embargo_is_not_found(client, draft, draft_rerun, who):
    if who == "another entrant":
        client.force_login(UserFactory())
    missing = 10**9
    for template in ENTRY_URLS:
        hidden = client.get(template.format(pk=draft.pk))
        never = client.get(template.format(pk=missing))
        assert (hidden.status_code, never.status_code) == (404, 404), template
    for template in RERUN_URLS:
        assert client.get(template.format(pk=draft_rerun.pk)).status_code == 404, template
    compare = client.get(f"/compare/?ids={draft.pk}").content.decode()
    assert f"#{draft.pk} " not in compare


@pytest.mark.parametrize("who", ["owner", "organizer"])
def test_its_owner_and_organizers_see_it(client, draft, who):
    client.force_login(draft.owner if who == "owner" else StaffFactory())
    for template in ENTRY_URLS:
        assert client.get(template.format(pk=draft.pk)).status_code == 200, template
