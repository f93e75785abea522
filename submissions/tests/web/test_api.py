"""The REST contract clients depend on: names, shapes and status codes."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from submissions.models import Submission
from testing.api import post_entry, token_client
from testing.entries import upload
from testing.factories import PASSWORD, ContestFactory, SubmissionFactory, UserFactory
from testing.logs import python_log

pytestmark = pytest.mark.django_db


def test_a_token_comes_from_username_and_password(entrant):
    response = APIClient().post(
        "/api/auth/token/", {"username": entrant.username, "password": PASSWORD}
    )
    assert response.status_code == 200
    assert response.json()["token"] == Token.objects.get(user=entrant).key


def test_a_wrong_password_gets_no_token(entrant):
    response = APIClient().post(
        "/api/auth/token/", {"username": entrant.username, "password": "nope"}
    )
    assert response.status_code == 400


def test_posting_a_run_returns_201_with_the_contract(contest, entrant, declared):
    response = post_entry(token_client(entrant), contest, declared)
    assert response.status_code == 201, response.content
    body = response.json()
    assert set(body) == {
        "id", "url", "contest", "server_family", "server_version", "storage_engine", "engine",
        "eligible", "verified", "verification", "verification_outcome", "trust", "trust_means",
        "live", "summary", "verdicts", "rules_version", "edited_at",
    }  # fmt: skip
    assert body["rules_version"]["number"] == 1 and body["edited_at"] is None
    assert (body["verified"], body["verification"], body["verification_outcome"]) == (False, "", "")
    assert (body["trust"], body["live"]) == ("self-reported", None)
    assert body["contest"] == contest.slug
    assert body["url"].endswith(f"/entries/{body['id']}/")
    assert body["url"].startswith("http")
    assert set(body["summary"]) == {
        "format",
        "rows",
        "elapsed_seconds",
        "average_rate",
        "terminal_rate",
        "terminal_window_rows",
        "terminal_window_start_row",
        "terminal_window_basis",
        "elapsed_source",
        "seconds_to_target",
        "estimated_seconds_to_target",
        "estimated",
        "estimate_basis",
        "excerpt",
        "demo",
        "track_figures",
        "db_size_bytes",
        "write_kb_per_row",
        "reads_per_row",
        "server_cpu_us_per_row",
        "client_cpu_us_per_row",
        "machine_cpu_us_per_row",
    }
    assert body["summary"]["track_figures"] == {}
    # A Python log carries no costs: absent, never zero.
    assert body["summary"]["db_size_bytes"] is None
    assert body["summary"]["rows"] == 5_000_000
    summary = body["summary"]
    # The log's summary line measured the run; the target was reached, so nothing is estimated.
    assert summary["elapsed_source"].startswith("summary line")
    assert summary["estimated"] is False
    assert summary["estimate_basis"] == ""
    assert summary["seconds_to_target"] == summary["elapsed_seconds"]
    assert body["eligible"] is True
    assert {"rule", "status", "message", "line"} <= set(body["verdicts"][0])


def test_it_answers_401_without_a_token(contest, declared):
    response = post_entry(APIClient(), contest, declared)
    assert response.status_code == 401
    assert Submission.objects.count() == 0


def test_a_bad_log_is_a_400_naming_the_line(contest, entrant, declared):
    response = post_entry(
        token_client(entrant), contest, declared, upload(b"<html>\n<body>hi</body>\n")
    )
    assert response.status_code == 400
    assert response.json()["log"][0].startswith("line 1")
    assert Submission.objects.count() == 0


def test_missing_and_invalid_fields_are_a_400_per_field(contest, entrant, declared):
    del declared["cpu_model"]
    declared["sockets"] = 0
    response = post_entry(token_client(entrant), contest, declared)
    assert response.status_code == 400
    body = response.json()
    assert "cpu_model" in body
    assert "sockets" in body


def test_an_unknown_contest_is_a_400(entrant, declared, db):
    response = token_client(entrant).post(
        "/api/submissions/",
        {"contest": "no-such-contest", **declared, "log": upload()},
        format="multipart",
    )
    assert response.status_code == 400
    assert "contest" in response.json()


def test_a_duplicate_log_is_a_400_linking_the_existing_entry(contest, entrant, declared):
    client = token_client(entrant)
    first = post_entry(client, contest, declared).json()
    response = post_entry(client, contest, declared)
    assert response.status_code == 400
    assert first["url"] in response.json()["log"][0]


def test_an_upload_over_the_cap_is_a_413(contest, entrant, declared, settings):
    settings.LOG_UPLOAD_MAX_BYTES = 100
    response = post_entry(token_client(entrant), contest, declared, upload(python_log()))
    assert response.status_code == 413
    assert "limited to 100 bytes" in response.json()["log"][0]
    assert Submission.objects.count() == 0


def test_an_entry_reads_back_with_the_same_body(contest, entrant, declared):
    client = token_client(entrant)
    created = post_entry(client, contest, declared).json()
    response = client.get(f"/api/submissions/{created['id']}/")
    assert response.status_code == 200
    assert response.json() == created


def test_someone_elses_unpublished_draft_is_not_found(entrant):
    embargoed = ContestFactory(results_published_at=timezone.now() + timedelta(days=3))
    draft = SubmissionFactory(contest=embargoed, owner=entrant)
    response = token_client(UserFactory()).get(f"/api/submissions/{draft.pk}/")
    assert response.status_code == 404


def test_the_owner_and_organizers_read_a_draft(entrant):
    embargoed = ContestFactory(results_published_at=None)
    draft = SubmissionFactory(contest=embargoed, owner=entrant)
    staff = UserFactory(username="organizer", is_staff=True)
    assert token_client(entrant).get(f"/api/submissions/{draft.pk}/").status_code == 200
    assert token_client(staff).get(f"/api/submissions/{draft.pk}/").status_code == 200


def test_anyone_reads_a_published_entry(contest):
    entry = SubmissionFactory(contest=contest)
    assert APIClient().get(f"/api/submissions/{entry.pk}/").status_code == 200


def test_the_contest_list_carries_its_rules(db):
    ContestFactory(slug="iibench-2008", deadline=None)
    body = APIClient().get("/api/contests/").json()
    contest = next(c for c in body["results"] if c["slug"] == "iibench-2008")
    assert contest["deadline"] is None
    assert contest["workload"] == "classic"
    assert contest["rules"]["rows_per_commit"] == 1000
    assert contest["rules"]["target_rows"] == 1_000_000_000


def test_the_openapi_schema_and_docs_are_served(db):
    client = APIClient()
    schema = client.get("/api/schema/")
    assert schema.status_code == 200
    assert b"/api/submissions/" in schema.content
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    assert b"cdn." not in docs.content  # Swagger UI comes from our own static files


def test_a_patch_whose_stored_log_no_longer_passes_is_a_400_and_saves_nothing(entrant):
    entry = SubmissionFactory(owner=entrant, contest=ContestFactory(), entrant_name="Ada")
    response = token_client(entrant).patch(
        f"/api/submissions/{entry.pk}/", {"entrant_name": "Eve"}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["log"][0].startswith("line 1: not an iiBench log")
    entry.refresh_from_db()
    assert entry.entrant_name == "Ada"


def test_a_client_still_sending_mysql_version_declares_a_mysql_server(contest, entrant, declared):
    older = {key: value for key, value in declared.items() if key != "server_version"}
    older.pop("server_family", None)

    response = post_entry(token_client(entrant), contest, {**older, "mysql_version": "5.1.25"})

    assert response.status_code == 201, response.json()
    entry = Submission.objects.get(pk=response.json()["id"])
    assert (entry.server_family, entry.server_version) == ("mysql", "5.1.25")
