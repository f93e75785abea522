"""POST /api/live/<id>/batches/, the registry's most frequent request (a batch from every
running witness client every few seconds), on a lean path: a plain Django view that takes a
well-formed batch from a usable witness token without DRF's request, parser, authentication,
serializer and renderer, with one prepared statement for the token (`TOKEN_SQL`).

Anything else — another method, content type or Accept, no Content-Length, a body that is not
a plain batch (a field of another type, a number where a list goes, a line with a NUL or
beyond ASCII, a machine of too many keys), no token or one that is unknown, revoked, expired
or of an inactive user — goes to the DRF view (`api.LiveRunBatches`) before anything is
counted or written, so every refusal is worded and ordered exactly as before (`lean_answer`, called first by the
DRF view's dispatch, which keeps the endpoint in the API schema). The answers of
the lean path (200, 409, 403, 404, 413, 429, 503) are the DRF view's bodies and statuses,
rendered by DRF's own JSON renderer."""

from __future__ import annotations

import json

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from rest_framework.renderers import JSONRenderer

from submissions.live import services, throttle
from submissions.live.models import WitnessToken
from submissions.live.serializers import MACHINE_MAX_KEYS

_TOKEN = WitnessToken._meta.db_table
# The token by its hash, with whether its user may still act; names from the models.
TOKEN_SQL = (
    f"SELECT token.id, token.user_id, token.contest_id, token.revoked_at, token.expires_at "  # noqa: S608  # nosec B608
    f"FROM {_TOKEN} AS token JOIN auth_user AS person ON person.id = token.user_id "
    "WHERE token.key_hash = %s AND person.is_active"
)
ANSWERED_AS_JSON = ("", "*/*", "application/json")
_renderer = JSONRenderer()


def _answer(body: dict, status: int = 200, headers: dict | None = None) -> HttpResponse:
    response = HttpResponse(
        _renderer.render(body), status=status, content_type="application/json", headers=headers
    )
    response["Vary"] = "Accept"
    response["Allow"] = "POST, OPTIONS"
    return response


def _from(drf_response) -> HttpResponse:
    """One of api.py's Responses (a refusal), rendered as the DRF view renders it."""
    headers = {"Retry-After": drf_response["Retry-After"]} if "Retry-After" in drf_response else {}
    return _answer(drf_response.data, drf_response.status_code, headers)


def plain_batch(request: HttpRequest) -> dict | None:
    """The batch, when the request is one the lean path answers as the DRF view would; else
    None (the DRF view takes it)."""
    if request.method != "POST" or request.content_type != "application/json":
        return None
    if request.META.get("HTTP_ACCEPT", "") not in ANSWERED_AS_JSON:
        return None
    length = request.META.get("CONTENT_LENGTH") or ""
    if not length.isdigit() or int(length) > settings.LIVE_BATCH_MAX_BYTES:
        return None
    try:
        body = json.loads(request.body, parse_constant=_refuse_constant)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(body, dict):
        return None
    seq, lines = body.get("seq"), body.get("lines")
    unterminated = body.get("unterminated", False)
    machine = body.get("machine", {})
    if type(seq) is not int or seq < 0 or type(lines) is not list or len(lines) > 100_000:
        return None
    if type(unterminated) is not bool or type(machine) is not dict:
        return None
    if len(machine) > MACHINE_MAX_KEYS:
        return None
    for line in lines:
        if type(line) is not str or not line.isascii() or "\x00" in line:
            return None
    return {"seq": seq, "lines": lines, "unterminated": unterminated, "machine": machine}


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def usable_token(request: HttpRequest) -> WitnessToken | None:
    """The request's witness token when it is usable, from one indexed query; else None."""
    parts = request.META.get("HTTP_AUTHORIZATION", "").split()
    if len(parts) != 2 or parts[0].lower() != "bearer":
        return None
    key_hash = services.token_hash(parts[1])
    if connection.vendor != "postgresql":  # SQLite hands back its own types: the ORM reads
        token = WitnessToken.objects.filter(key_hash=key_hash, user__is_active=True).first()
    else:
        with services.prepared_cursor() as cursor:
            cursor.execute(TOKEN_SQL, [key_hash])
            row = cursor.fetchone()
        token = row and WitnessToken(
            id=row[0], user_id=row[1], contest_id=row[2], revoked_at=row[3], expires_at=row[4]
        )
    return token if token and token.usable(timezone.now()) else None


def lean_answer(request: HttpRequest, pk: int) -> HttpResponse | None:
    """The answer to a plain batch from a usable witness token; None for any other request,
    before anything was counted or written (the DRF view answers it)."""
    from submissions.live import api  # the DRF view calls this first

    batch = plain_batch(request)
    token = usable_token(request) if batch is not None else None
    if token is None:
        return None
    try:
        allowed, retry_after = throttle.batch_allowed(pk)
    except throttle.BudgetUnavailable:
        return _from(api.cache_down())
    if not allowed:
        return _from(
            api.too_many(
                f"More than {settings.LIVE_BATCHES_PER_MINUTE} batches a minute for one run.",
                retry_after,
            )
        )
    try:
        appended = services.live_run_append(run_id=pk, token=token, **batch)
    except services.LiveRefused as error:
        return _from(api.refused(error))
    return _answer(
        {
            "next_seq": appended.next_seq,
            "replayed": appended.replayed,
            "received_at": appended.received_at,
        }
    )
