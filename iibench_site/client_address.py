"""The client's address when the site is served behind proxies (nginx in the compose file):
the log-in lockout counts failures per username and address, and behind a proxy every request
comes from the proxy's address."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str | None:
    """With BEHIND_PROXIES = N, the N-th address from the right of X-Forwarded-For: each of our
    proxies appends the address it saw, so anything left of those was written by the client
    and cannot be trusted. Without proxies, the socket's address."""
    proxies = settings.BEHIND_PROXIES
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    forwarded = [part for part in forwarded if part]
    if proxies and len(forwarded) >= proxies:
        return forwarded[-proxies]
    return request.META.get("REMOTE_ADDR")


# What a failed log-in is recorded under: django-axes keeps it in a column of 255 characters,
# and a longer name (no account has one: usernames hold at most 150) was a 500.
RECORDED_USERNAME_CHARS = 150


def login_username(request: HttpRequest, credentials: dict | None = None) -> str | None:
    """The username a log-in tried (axes's own rule: its credentials, else the posted form),
    cut to what an account's name can hold."""
    if credentials:
        username = credentials.get("username")
    else:
        username = getattr(request, "data", request.POST).get("username")
    return None if username is None else str(username)[:RECORDED_USERNAME_CHARS]
