"""Contest pages are cached per board version: every change a visitor could see shows on the
very next request, whatever made it."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from submissions.entries import services
from submissions.models import ReferenceResult
from testing.entries import DECLARED, upload
from testing.factories import SubmissionFactory, UserFactory
from testing.logs import python_log

pytestmark = pytest.mark.django_db


def board(client, contest) -> str:
    return client.get(reverse("contest_detail", args=[contest.slug])).content.decode()


def api_names(contest) -> list[str]:
    body = APIClient().get(f"/api/contests/{contest.slug}/leaderboard/").json()
    return [row["entrant"] for row in body["results"]]


def test_a_new_entry_shows_at_once(client, contest):
    assert "Grace Entrant" not in board(client, contest)
    assert api_names(contest) == []
    services.entry_create(
        contest=contest,
        owner=UserFactory(),
        declared={**DECLARED, "entrant_name": "Grace Entrant"},
        log_file=upload(python_log()),
    )
    assert "Grace Entrant" in board(client, contest)
    assert api_names(contest) == ["Grace Entrant"]


def test_an_edit_made_outside_the_services_shows_at_once(client, contest):
    entry = SubmissionFactory(contest=contest, entrant_name="Named Person", publish=True)
    assert "Named Person" in board(client, contest)
    entry.publish = False
    entry.save()  # as the admin would
    page = board(client, contest)
    assert "Named Person" not in page
    assert "Anonymous entrant" in page


def test_a_verified_badge_set_by_a_rerun_shows_at_once(client, contest):
    from submissions.contests.ranks import contest_board_changed  # what the rerun service calls
    from submissions.models import Submission

    entry = SubmissionFactory(contest=contest)
    before = api_names(contest)
    Submission.objects.filter(pk=entry.pk).update(verification="reproduced")
    contest_board_changed(contest_id=contest.pk)
    body = APIClient().get(f"/api/contests/{contest.slug}/leaderboard/").json()
    assert before == [entry.entrant_name]
    assert body["results"][0]["verified"] is True


def test_a_deleted_entry_disappears_at_once(client, contest):
    entry = SubmissionFactory(contest=contest, entrant_name="Gone Soon")
    assert "Gone Soon" in board(client, contest)
    entry.delete()
    assert "Gone Soon" not in board(client, contest)


def test_a_new_reference_row_and_a_contest_edit_show_at_once(client, contest):
    board(client, contest)
    ReferenceResult.objects.create(
        contest=contest, label="Tokutek InnoDB (2008)", storage_engine="InnoDB",
        hardware="Sun x4150", rows=1_000_000_000, elapsed_seconds=19.6 * 86400,
        terminal_rate=404, source="seed 000",
    )  # fmt: skip
    assert "Tokutek InnoDB (2008)" in board(client, contest)
    contest.title = "A renamed contest"
    contest.save()
    assert "A renamed contest" in board(client, contest)


def test_organizers_and_the_public_get_their_own_page(client, contest):
    contest.results_published_at = None
    contest.save()
    SubmissionFactory(contest=contest, entrant_name="Embargoed Entrant")
    staff = UserFactory(username="staffer", is_staff=True)
    client.force_login(staff)
    assert "Embargoed Entrant" in board(client, contest)
    client.logout()
    page = board(client, contest)
    assert "Embargoed Entrant" not in page
    assert "Results are not published yet." in page


def test_a_board_cached_before_its_publication_time_shows_once_it_passes(client, contest):
    import time
    from datetime import timedelta

    from django.utils import timezone

    contest.results_published_at = timezone.now() + timedelta(seconds=1)
    contest.save()
    SubmissionFactory(contest=contest, entrant_name="Soon Public")
    assert "Soon Public" not in board(client, contest)
    time.sleep(1.2)
    assert "Soon Public" in board(client, contest)


def test_the_api_board_kept_as_json_is_served_only_as_json(client, contest):
    SubmissionFactory(contest=contest, entrant_name="Grace Entrant")
    url = f"/api/contests/{contest.slug}/leaderboard/?page_size=1000"
    first = APIClient().get(url)
    again = APIClient().get(url)
    assert first["Content-Type"] == again["Content-Type"] == "application/json"
    assert again.content == first.content
    assert [row["entrant"] for row in again.json()["results"]] == ["Grace Entrant"]
    # The browsable API asks for HTML at the same URL: it gets HTML, not the kept bytes.
    page = APIClient().get(url, HTTP_ACCEPT="text/html")
    assert page["Content-Type"].startswith("text/html")
    assert b"Grace Entrant" in page.content


def test_the_api_board_is_kept_by_the_process_under_its_board_version(contest):
    from django.core.cache import cache
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    SubmissionFactory(contest=contest, entrant_name="Grace Entrant")
    url = f"/api/contests/{contest.slug}/leaderboard/?page_size=1000"
    first = APIClient().get(url)
    cache.clear()  # the shared cache lost it (Redis restarted): the process still has it
    with CaptureQueriesContext(connection) as queries:
        again = APIClient().get(url)
    assert again.content == first.content
    assert len(queries) == 1  # the board version, nothing else
    SubmissionFactory(contest=contest, entrant_name="Ada Newcomer")
    assert sorted(row["entrant"] for row in APIClient().get(url).json()["results"]) == [
        "Ada Newcomer",
        "Grace Entrant",
    ]


def test_a_kept_api_board_answers_the_bytes_and_headers_of_the_first_answer(contest):
    # The second request is served from the process's kept body without DRF's dispatch: it
    # must not be told apart from the first.
    SubmissionFactory(contest=contest, entrant_name="Grace Entrant")
    url = f"/api/contests/{contest.slug}/leaderboard/?page_size=1000"
    first = APIClient().get(url)
    again = APIClient().get(url, HTTP_ACCEPT="application/json")
    assert again.status_code == first.status_code == 200
    assert again.content == first.content
    assert {h: again.get(h) for h in ("Content-Type", "Allow", "Vary")} == {
        h: first.get(h) for h in ("Content-Type", "Allow", "Vary")
    }


def test_an_organizer_with_a_token_gets_the_embargoed_board_and_a_visitor_a_403(contest):
    from rest_framework.authtoken.models import Token

    contest.results_published_at = None
    contest.save()
    SubmissionFactory(contest=contest, entrant_name="Grace Entrant")
    url = f"/api/contests/{contest.slug}/leaderboard/"
    token = Token.objects.create(user=UserFactory(is_staff=True))
    for _ in range(2):  # the second time from what the process keeps
        seen = APIClient().get(url, HTTP_AUTHORIZATION=f"Token {token.key}")
        assert [row["entrant"] for row in seen.json()["results"]] == ["Grace Entrant"]
        assert APIClient().get(url).status_code == 403
