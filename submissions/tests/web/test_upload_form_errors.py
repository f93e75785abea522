"""The upload form after a mistake. Seen: the errors sat at the bottom with no banner, and the
log had to be chosen again. Now a summary at the top links to each field, and the log is kept
on the server for the retry."""

import re

import pytest
from django.urls import reverse

from submissions.models import Submission
from testing.entries import upload
from testing.views_helpers import form_data

pytestmark = pytest.mark.django_db


def test_errors_are_summed_up_at_the_top_with_a_link_to_each_field(
    client, entrant, contest, declared
):
    client.force_login(entrant)
    data = form_data({**declared, "cores": "many", "cpu_model": ""})
    page = client.post(reverse("submission_create", args=[contest.slug]), data).content.decode()
    summary = page.index('id="error-summary"')
    assert summary < page.index('class="entry-form"')
    links = re.findall(r'<li><a href="#(id_\w+)">', page[summary : page.index("</div>", summary)])
    assert links == ["id_cpu_model", "id_cores"]
    for target in links:
        assert f'id="{target}"' in page


def test_the_log_is_kept_for_the_retry_and_sent_without_choosing_it_again(
    client, entrant, contest, declared
):
    client.force_login(entrant)
    url = reverse("submission_create", args=[contest.slug])
    first = client.post(url, form_data({**declared, "cores": ""}, upload(name="run-17.log")))
    page = first.content.decode()
    assert "Your log <strong>run-17.log</strong>" in page and "is kept from your last try" in page
    token = re.search(r'name="kept_log" value="([^"]+)"', page).group(1)
    assert not Submission.objects.exists()
    retry = form_data(declared)
    del retry["log"]
    response = client.post(url, {**retry, "kept_log": token})
    assert response.status_code == 302, response.content.decode()[:2000]
    entry = Submission.objects.get()
    assert entry.log_name == "run-17.log" and entry.rows > 0


def test_a_kept_log_is_only_its_senders(client, entrant, contest, declared):
    from testing.factories import UserFactory

    client.force_login(entrant)
    url = reverse("submission_create", args=[contest.slug])
    page = client.post(url, form_data({**declared, "cores": ""})).content.decode()
    token = re.search(r'name="kept_log" value="([^"]+)"', page).group(1)
    client.force_login(UserFactory())
    retry = form_data(declared)
    del retry["log"]
    response = client.post(url, {**retry, "kept_log": token})
    assert response.status_code == 200
    assert "iiBench output: This field is required." in response.content.decode()
    assert not Submission.objects.exists()


def test_a_refused_log_is_not_kept(client, entrant, contest, declared):
    client.force_login(entrant)
    url = reverse("submission_create", args=[contest.slug])
    page = client.post(url, form_data(declared, upload(b"not a log at all\n"))).content.decode()
    assert 'href="#id_log"' in page
    assert 'name="kept_log"' not in page
