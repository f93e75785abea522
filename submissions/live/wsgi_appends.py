"""A witness client's plain batch answered before Django's handler, middleware and URL
resolver: the WSGI application (`iibench_site/wsgi.py`) is `AppendsBeforeDjango(Django's)`.

It takes `POST /api/live/<id>/batches/` only when the lean path would take it (JSON in and
out, a Content-Length within the batch limit, a plain batch, a usable witness token: the
functions of `batch_post.py`, the same that answer it inside Django) and when Django's
middleware would let it through untouched: PostgreSQL, a Host in ALLOWED_HOSTS, no redirect to
HTTPS due. Every other request, and any of these it does not take, goes to Django as it came
(its body handed on), before anything is counted or written (but for a batch whose token, kept
by the process, was revoked meanwhile: counted against its run's budget, then refused by the
DRF view); so every refusal is answered by the DRF view as before. Its answers carry the headers Django's middleware adds to that view's
(`_middleware_headers`, kept equal by test_wsgi_appends.py), and a database that is down or an
error are answered as Django answers them. The request ends as Django's do (request_finished:
a connection past its age or broken closed, the next health check armed, the caches closed);
request_started is not sent (its receivers, Django's, would check the connection again and
empty the DEBUG query log, which this path does not fill).
"""

from __future__ import annotations

import functools
import io
import re
from dataclasses import dataclass
from http.client import responses

from django.conf import settings
from django.core import signals
from django.core.handlers.exception import response_for_exception
from django.core.handlers.wsgi import WSGIRequest
from django.core.signals import setting_changed
from django.db import connection
from django.dispatch import receiver
from django.http.request import split_domain_port, validate_host

from iibench_site.middleware import DATABASE_DOWN, database_unavailable
from submissions.live import batch_post

BATCHES_PATH = re.compile(r"/api/live/([0-9]+)/batches/")
DEBUG_HOSTS = [".localhost", "127.0.0.1", "[::1]"]  # Django's own, under DEBUG


class AppendsBeforeDjango:
    def __init__(self, django_application):
        self.django = django_application

    def __call__(self, environ: dict, start_response):
        found = BATCHES_PATH.fullmatch(environ.get("PATH_INFO", ""))
        if found is None or environ.get("REQUEST_METHOD") != "POST" or not _takes(environ):
            return self.django(environ, start_response)
        answered = self._answer(environ, int(found[1]))
        if answered is None:
            return self.django(environ, start_response)
        status, headers, body = answered
        start_response(status, headers)
        return _Body(body, self.__class__)

    def _answer(self, environ: dict, run_id: int) -> tuple[str, list, bytes] | None:
        length = int(environ["CONTENT_LENGTH"])
        body = environ["wsgi.input"].read(length)
        environ["wsgi.input"] = io.BytesIO(body)  # for Django, when it takes the request
        if len(body) != length:
            return None
        batch = batch_post.batch_in(body)
        if batch is None:
            return None
        try:
            authorization = environ.get("HTTP_AUTHORIZATION", "")
            answer = batch_post.plain_batch_answer(authorization, run_id, batch)
            if answer is None:
                return None
        except DATABASE_DOWN as error:
            return _django_answer(environ, database_unavailable(WSGIRequest(environ), error))
        except Exception as error:  # answered and logged as Django answers an error
            response = response_for_exception(WSGIRequest(environ), error)
            return _django_answer(environ, response)
        headers = [
            ("Content-Type", batch_post.JSON),
            ("Vary", "Accept"),
            ("Allow", batch_post.ALLOWED),
            *answer.headers.items(),
        ]
        return _wsgi_answer(environ, answer.status, headers, answer.body)


@dataclass(frozen=True)
class _Policy:
    """What the settings say of these requests, read once (Django's settings cost a Python
    call each) and again whenever a setting changes (tests)."""

    taken: bool  # PostgreSQL, and nothing CommonMiddleware would do to them
    ssl_redirect: bool
    proxy_ssl_header: tuple[str, str] | None
    allowed_hosts: tuple[str, ...]
    headers: tuple[tuple[str, str], ...]  # what the middleware adds, over HTTP
    secure_headers: tuple[tuple[str, str], ...]  # and over HTTPS


@functools.cache
def _policy() -> _Policy:
    common = settings.PREPEND_WWW or settings.DISALLOWED_USER_AGENTS
    return _Policy(
        taken=connection.vendor == "postgresql"
        and not common
        and not settings.USE_X_FORWARDED_HOST,
        ssl_redirect=settings.SECURE_SSL_REDIRECT,
        proxy_ssl_header=settings.SECURE_PROXY_SSL_HEADER,
        allowed_hosts=tuple(settings.ALLOWED_HOSTS or (DEBUG_HOSTS if settings.DEBUG else [])),
        headers=tuple(_middleware_headers(secure=False)),
        secure_headers=tuple(_middleware_headers(secure=True)),
    )


@receiver(setting_changed)
def _settings_changed(**kwargs) -> None:
    _policy.cache_clear()


def _takes(environ: dict) -> bool:
    """The request is one the lean path may take, and one Django's middleware would hand to
    the view untouched."""
    policy = _policy()
    if not policy.taken or environ.get("CONTENT_TYPE") != batch_post.JSON:
        return False
    if not batch_post.plain_headers(environ.get("HTTP_ACCEPT", ""), environ.get("CONTENT_LENGTH")):
        return False
    if policy.ssl_redirect and not _secure(environ, policy):
        return False  # SecurityMiddleware redirects it
    domain, _ = split_domain_port(environ.get("HTTP_HOST", ""))
    return bool(domain) and validate_host(domain, policy.allowed_hosts)


def _secure(environ: dict, policy: _Policy) -> bool:
    """HttpRequest.is_secure() from the environ."""
    if policy.proxy_ssl_header:
        header, secure_value = policy.proxy_ssl_header
        value = environ.get(header)
        if value is not None:
            return value.split(",", 1)[0].strip() == secure_value
    return environ.get("wsgi.url_scheme") == "https"


def _middleware_headers(*, secure: bool) -> list[tuple[str, str]]:
    """What the project's middleware adds to the DRF view's answer (SecurityMiddleware,
    XFrameOptionsMiddleware, ContentSecurityPolicyMiddleware), in their order."""
    headers = []
    if settings.SECURE_HSTS_SECONDS and secure:
        hsts = f"max-age={settings.SECURE_HSTS_SECONDS}"
        if settings.SECURE_HSTS_INCLUDE_SUBDOMAINS:
            hsts += "; includeSubDomains"
        if settings.SECURE_HSTS_PRELOAD:
            hsts += "; preload"
        headers.append(("Strict-Transport-Security", hsts))
    if settings.SECURE_CONTENT_TYPE_NOSNIFF:
        headers.append(("X-Content-Type-Options", "nosniff"))
    policy = settings.SECURE_REFERRER_POLICY
    if policy:
        policy = [part.strip() for part in policy.split(",")] if isinstance(policy, str) else policy
        headers.append(("Referrer-Policy", ",".join(policy)))
    if settings.SECURE_CROSS_ORIGIN_OPENER_POLICY:
        headers.append(("Cross-Origin-Opener-Policy", settings.SECURE_CROSS_ORIGIN_OPENER_POLICY))
    headers.append(("X-Frame-Options", settings.X_FRAME_OPTIONS.upper()))
    headers.append(("Content-Security-Policy", settings.CONTENT_SECURITY_POLICY))
    return headers


def _wsgi_answer(environ: dict, status: int, headers: list, body: bytes) -> tuple[str, list, bytes]:
    policy = _policy()
    added = policy.secure_headers if _secure(environ, policy) else policy.headers
    named = {name.lower() for name, _ in headers}
    headers += [header for header in added if header[0].lower() not in named]
    headers.append(("Content-Length", str(len(body))))
    return f"{status} {responses[status]}", headers, body


def _django_answer(environ: dict, response) -> tuple[str, list, bytes]:
    """A response Django made (a database down, an error), with the middleware's headers."""
    headers = [(name, value) for name, value in response.items() if name != "Content-Length"]
    return _wsgi_answer(environ, response.status_code, headers, response.content)


class _Body:
    """The answer's body; closing it ends the request as Django's responses do."""

    def __init__(self, body: bytes, sender) -> None:
        self.body, self.sender = body, sender

    def __iter__(self):
        yield self.body

    def close(self) -> None:
        signals.request_finished.send(sender=self.sender)
