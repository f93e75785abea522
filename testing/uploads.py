"""An upload, a form post or a preview of a log as a client sends it, and what the client reads
of the answer (the bomb tests and the site's bound on log reads at once)."""

from __future__ import annotations

import html

from django.urls import reverse
from rest_framework.test import APIClient

from testing.api import token_client
from testing.entries import DECLARED, upload


def post(channel: str, user, contest, log: bytes):
    file = upload(log, name="bomb.log.gz" if log[:2] == b"\x1f\x8b" else "bomb.log")
    if channel == "api":
        return token_client(user).post(
            "/api/submissions/",
            {"contest": contest.slug, **DECLARED, "log": file},
            format="multipart",
        )
    if channel == "preview":
        return token_client(user).post(
            "/api/submissions/preview/", {"contest": contest.slug, "log": file}, format="multipart"
        )
    client = APIClient()
    client.force_login(user)
    return client.post(reverse("submission_create", args=[contest.slug]), {**DECLARED, "log": file})


def what_the_client_reads(channel: str, response) -> str:
    if channel == "form":
        return html.unescape(response.content.decode())
    return " ".join(response.json().get("log", [])) or response.json().get("detail", "")
