"""Users see and revoke their API tokens, on the account page and through the API; tokens
expire after API_TOKEN_DAYS."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from testing.factories import PASSWORD

pytestmark = pytest.mark.django_db


def issued(user) -> str:
    response = APIClient().post(
        "/api/auth/token/", {"username": user.username, "password": PASSWORD}
    )
    assert response.status_code == 200
    return response.json()["token"]


def with_token(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_the_account_page_lists_the_token_by_its_first_characters_only(client, entrant):
    key = issued(entrant)
    client.force_login(entrant)
    page = client.get(reverse("account")).content.decode()
    assert f"<code>{key[:6]}…</code>" in page
    assert key not in page
    assert "the REST API" in page


def test_revoking_on_the_account_page_refuses_the_token_at_once(client, entrant):
    key = issued(entrant)
    assert with_token(key).get("/api/auth/tokens/").status_code == 200
    client.force_login(entrant)
    response = client.post(reverse("token_revoke", args=["api"]), follow=True)
    assert "Your API token is revoked" in response.content.decode()
    assert with_token(key).get("/api/auth/tokens/").status_code == 401
    assert not Token.objects.filter(user=entrant).exists()


def test_the_api_lists_and_revokes_the_callers_token(entrant):
    key = issued(entrant)
    api = with_token(key)
    listed = api.get("/api/auth/tokens/").json()["tokens"]
    assert [(token["kind"], token["prefix"]) for token in listed] == [("api", key[:6])]
    assert "key" not in listed[0]
    assert api.delete("/api/auth/token/").status_code == 204
    assert api.get("/api/auth/tokens/").status_code == 401


def test_an_expired_token_is_refused_and_a_new_one_is_issued(entrant, settings):
    settings.API_TOKEN_DAYS = 30
    key = issued(entrant)
    Token.objects.filter(key=key).update(created=timezone.now() - timedelta(days=31))
    refused = with_token(key).get("/api/auth/tokens/")
    assert refused.status_code == 401
    assert "expired" in refused.json()["detail"]
    fresh = issued(entrant)
    assert fresh != key
    assert with_token(fresh).get("/api/auth/tokens/").status_code == 200


def test_tokens_never_expire_when_the_setting_is_zero(entrant, settings):
    settings.API_TOKEN_DAYS = 0
    key = issued(entrant)
    Token.objects.filter(key=key).update(created=timezone.now() - timedelta(days=3650))
    listed = with_token(key).get("/api/auth/tokens/").json()["tokens"]
    assert listed[0]["expires_at"] is None
