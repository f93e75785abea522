"""Brute force, upload rate, security headers and the production checks."""

import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.cache import cache
from django.urls import reverse
from rest_framework.test import APIClient

from submissions.models import DemoKind, Submission
from testing.entries import upload
from testing.factories import PASSWORD, StaffFactory
from testing.logs import python_log

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()


def test_log_in_is_locked_after_five_wrong_passwords(client, entrant):
    for _ in range(5):
        client.post(reverse("login"), {"username": entrant.username, "password": "wrong"})
    response = client.post(reverse("login"), {"username": entrant.username, "password": PASSWORD})
    assert response.status_code == 429
    assert "Too many failed log-ins" in response.content.decode()


def test_the_token_endpoint_is_locked_too(entrant):
    client = APIClient()
    for _ in range(5):
        client.post("/api/auth/token/", {"username": entrant.username, "password": "wrong"})
    response = client.post("/api/auth/token/", {"username": entrant.username, "password": PASSWORD})
    assert response.status_code == 429


def test_uploads_are_limited_per_user_per_hour_across_form_and_api(
    client, contest, entrant, declared, settings
):
    settings.UPLOADS_PER_HOUR = 2
    client.force_login(entrant)
    data = {**declared, "publish": "on", "direct_attached": "on"}
    for rows in (2_000_000, 3_000_000):
        client.post(
            reverse("submission_create", args=[contest.slug]),
            {**data, "log": upload(python_log(rows))},
        )
    api = APIClient()
    api.force_authenticate(entrant)
    response = api.post(
        "/api/submissions/",
        {"contest": contest.slug, **declared, "log": upload(python_log(4_000_000))},
        format="multipart",
    )
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    assert "stored 2 entries this hour" in response.json()["detail"]
    page = client.post(
        reverse("submission_create", args=[contest.slug]),
        {**data, "log": upload(python_log(5_000_000))},
    )
    assert page.status_code == 429
    assert Submission.objects.count() == 2


def test_demo_entries_do_not_use_up_the_upload_limit(contest, entrant, declared, settings):
    settings.UPLOADS_PER_HOUR = 1
    api = APIClient()
    api.force_authenticate(entrant)
    first = api.post(
        "/api/submissions/",
        {"contest": contest.slug, **declared, "log": upload(python_log(2_000_000))},
        format="multipart",
    )
    assert first.status_code == 201
    Submission.objects.filter(pk=first.json()["id"]).update(demo=DemoKind.DEMO)
    second = api.post(
        "/api/submissions/",
        {"contest": contest.slug, **declared, "log": upload(python_log(3_000_000))},
        format="multipart",
    )
    assert second.status_code == 201
    third = api.post(
        "/api/submissions/",
        {"contest": contest.slug, **declared, "log": upload(python_log(4_000_000))},
        format="multipart",
    )
    assert third.status_code == 429


def test_refused_attempts_do_not_use_up_the_upload_limit(contest, entrant, declared, settings):
    settings.UPLOADS_PER_HOUR = 1
    api = APIClient()
    api.force_authenticate(entrant)
    for _ in range(3):
        bad = api.post(
            "/api/submissions/",
            {"contest": contest.slug, **declared, "log": upload(b"not a log at all\n")},
            format="multipart",
        )
        assert bad.status_code == 400
    fixed = api.post(
        "/api/submissions/",
        {"contest": contest.slug, **declared, "log": upload(python_log(2_000_000))},
        format="multipart",
    )
    assert fixed.status_code == 201
    assert Submission.objects.count() == 1


def test_refused_attempts_have_a_limit_of_their_own(contest, entrant, declared, settings):
    settings.REFUSED_UPLOADS_PER_HOUR = 2
    api = APIClient()
    api.force_authenticate(entrant)
    answers = [
        api.post(
            "/api/submissions/",
            {"contest": contest.slug, **declared, "log": upload(b"not a log at all\n")},
            format="multipart",
        )
        for _ in range(3)
    ]
    assert [answer.status_code for answer in answers] == [400, 400, 429]
    assert "sent 2 refused logs this hour" in answers[2].json()["detail"]
    assert int(answers[2]["Retry-After"]) > 0


def test_pages_carry_the_security_headers(client):
    response = client.get("/")
    assert "default-src 'self'" in response["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in response["Content-Security-Policy"]
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"


def test_every_form_carries_a_csrf_token(client, contest, entrant):
    pages = [reverse("login"), reverse("signup")]
    for page in pages:
        assert 'name="csrfmiddlewaretoken"' in client.get(page).content.decode(), page
    client.force_login(entrant)
    assert (
        'name="csrfmiddlewaretoken"'
        in client.get(reverse("submission_create", args=[contest.slug])).content.decode()
    )


def test_a_post_without_csrf_token_is_refused(contest, entrant, declared):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(entrant)
    response = strict.post(
        reverse("submission_create", args=[contest.slug]), {**declared, "log": upload()}
    )
    assert response.status_code == 403
    assert Submission.objects.count() == 0


def test_the_production_settings_pass_the_deploy_checks():
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "iibench_site.settings.production",
        "DJANGO_SECRET_KEY": "x" * 60 + "-Ab3$",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=settings.BASE_DIR, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_production_settings_refuse_to_start_without_a_secret_key():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SECRET_KEY"}
    env["DJANGO_SETTINGS_MODULE"] = "iibench_site.settings.production"
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr


def test_the_production_server_sends_the_security_headers(live_site):
    import urllib.request

    # Behind the TLS proxy (SECURE_PROXY_SSL_HEADER): the request counts as HTTPS.
    request = urllib.request.Request(  # noqa: S310 - the test's own server on loopback
        live_site.url + "/", headers={"X-Forwarded-Proto": "https"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
        headers = response.headers

    assert headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    assert headers["Content-Security-Policy"] == settings.CONTENT_SECURITY_POLICY
    assert "script-src 'self';" in headers["Content-Security-Policy"]  # no inline, no eval
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "same-origin"
    assert headers["Cross-Origin-Opener-Policy"] == "same-origin"


def test_the_admin_log_in_is_locked_after_five_wrong_passwords(client):
    organizer = StaffFactory(is_superuser=True)
    for _ in range(5):
        client.post("/admin/login/", {"username": organizer.username, "password": "wrong"})
    response = client.post("/admin/login/", {"username": organizer.username, "password": PASSWORD})
    assert response.status_code == 429
    assert not client.get("/admin/").wsgi_request.user.is_authenticated


def test_an_api_request_django_cannot_read_gets_a_json_400(entrant, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 5
    client = APIClient()
    client.force_authenticate(entrant)
    response = client.post(
        "/api/submissions/", {f"field{i}": "x" for i in range(20)}, format="multipart"
    )
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert "too many fields" in response.json()["detail"]
    assert Submission.objects.count() == 0


def test_a_password_reset_mail_goes_out_through_the_configured_backend(client, entrant, mailoutbox):
    response = client.post(reverse("password_reset"), {"email": entrant.email})
    assert response.status_code == 302
    assert len(mailoutbox) == 1
    assert entrant.email in mailoutbox[0].to


def test_behind_a_proxy_the_lockout_counts_the_address_the_proxy_saw(settings):
    from django.test import RequestFactory

    from iibench_site.client_address import client_address

    request = RequestFactory().get(
        "/", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.7", REMOTE_ADDR="172.18.0.5"
    )
    settings.BEHIND_PROXIES = 1
    # The left entry is whatever the client wrote; the right one is what nginx saw.
    assert client_address(request) == "203.0.113.7"
    settings.BEHIND_PROXIES = 0
    assert client_address(request) == "172.18.0.5"


def test_behind_a_proxy_one_clients_wrong_passwords_do_not_lock_out_another(entrant, settings):
    settings.BEHIND_PROXIES = 1
    attacker = APIClient(REMOTE_ADDR="172.18.0.5", HTTP_X_FORWARDED_FOR="203.0.113.7")
    for _ in range(5):
        attacker.post("/api/auth/token/", {"username": entrant.username, "password": "wrong"})
    locked = attacker.post("/api/auth/token/", {"username": entrant.username, "password": PASSWORD})
    assert locked.status_code == 429
    owner = APIClient(REMOTE_ADDR="172.18.0.5", HTTP_X_FORWARDED_FOR="198.51.100.2")
    answer = owner.post("/api/auth/token/", {"username": entrant.username, "password": PASSWORD})
    assert answer.status_code == 200
