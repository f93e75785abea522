"""The REST API as an entrant's client uses it: a token's client and an entry posted with it."""

from __future__ import annotations

from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from testing.entries import upload


def token_client(user) -> APIClient:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def post_entry(client, contest, declared, log=None):
    return client.post(
        "/api/submissions/",
        {"contest": contest.slug, **declared, "log": log or upload()},
        format="multipart",
    )
