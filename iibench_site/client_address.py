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
