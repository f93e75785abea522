"""POST /api/live/<id>/batches/, the registry's most frequent request (a batch from every
running witness client every few seconds), on a lean path: a plain batch from a usable witness
token answered without DRF's request, parser, authentication, serializer and renderer; its
token and the run's counters read by one prepared statement, its budget counted by one Redis
round trip, and the batch written by one statement when it is plain (`plain_append.py`).
`wsgi_appends.py` answers the same requests with these functions before Django's handler
and middleware; `lean_answer`, called first by the DRF view's dispatch (which keeps the
endpoint in the API schema), answers them when they come through Django (the test client,
a request the WSGI path left to Django, SQLite).

Anything else — another method, content type or Accept, no Content-Length, a body that is not
a plain batch (a field of another type, a number where a list goes, a line with a NUL or
beyond ASCII, a machine of too many keys or with a NUL), no token or one that is unknown, revoked, expired
or of an inactive user — goes to the DRF view (`api.LiveRunBatches`) before anything is
counted or written, so every refusal is worded and ordered exactly as before. The answers of
the lean path (200, 409, 403, 404, 413, 429, 503) are the DRF view's bodies and statuses,
rendered by DRF's own JSON renderer."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import psycopg
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from rest_framework.renderers import JSONRenderer

from submissions.live import answers, plain_append, services, throttle
from submissions.live.models import WitnessToken
from submissions.live.serializers import MACHINE_MAX_KEYS, MAX_SEQ
from submissions.web.text_input import json_with_nul

ANSWERED_AS_JSON = ("", "*/*", "application/json")
_renderer = JSONRenderer()


JSON = "application/json"
ALLOWED = "POST, OPTIONS"


@dataclass(frozen=True)
class Answer:
    """An answer of the lean path: its status, its body (JSON, rendered as the DRF view renders
    it) and its own headers (Retry-After)."""

    status: int
    body: bytes
    headers: dict = field(default_factory=dict)

    @classmethod
    def of(cls, drf_response) -> Answer:
        """One of api.py's Responses (a refusal)."""
        retry = drf_response.get("Retry-After")
        headers = {"Retry-After": retry} if retry is not None else {}
        return cls(drf_response.status_code, _renderer.render(drf_response.data), headers)


def plain_batch(request: HttpRequest) -> dict | None:
    """The batch, when the request is one the lean path answers as the DRF view would; else
    None (the DRF view takes it)."""
    if request.method != "POST" or request.content_type != "application/json":
        return None
    if not plain_headers(request.META.get("HTTP_ACCEPT", ""), request.META.get("CONTENT_LENGTH")):
        return None
    return batch_in(request.body)


def plain_headers(accept: str, length: str | None) -> bool:
    """An answer in JSON accepted, and a Content-Length within a batch's limit."""
    length = length or ""
    return (
        accept in ANSWERED_AS_JSON
        and length.isdigit()
        and int(length) <= settings.LIVE_BATCH_MAX_BYTES
    )


def batch_in(body: bytes) -> dict | None:
    """The batch a body holds when it is a plain one (the module's docstring), else None."""
    try:
        body = json.loads(body, parse_constant=_refuse_constant)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(body, dict):
        return None
    seq, lines = body.get("seq"), body.get("lines")
    unterminated = body.get("unterminated", False)
    machine = body.get("machine", {})
    if type(seq) is not int or not 0 <= seq <= MAX_SEQ:
        return None
    if type(lines) is not list or len(lines) > 100_000:
        return None
    if type(unterminated) is not bool or type(machine) is not dict:
        return None
    if len(machine) > MACHINE_MAX_KEYS or json_with_nul(machine) is not None:
        return None
    for line in lines:
        if type(line) is not str or not line.isascii() or "\x00" in line:
            return None
    return {"seq": seq, "lines": lines, "unterminated": unterminated, "machine": machine}


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def plain_batch_answer(authorization: str, run_id: int, batch: dict) -> Answer | None:
    """The answer to a plain batch; None when the request's token is not a usable witness
    token (the DRF view answers it). One cursor for the request's statements: on PostgreSQL,
    with a token the process read usable in the last minute and a batch of plain reports,
    the write alone (plain_append.py)."""
    parts = authorization.split()
    if len(parts) != 2 or parts[0].lower() != "bearer":
        return None
    key_hash = services.token_hash(parts[1])
    now = timezone.now()
    with services.prepared_cursor() as cursor:
        if not isinstance(cursor, psycopg.Cursor):  # SQLite hands back its own types: the ORM reads
            token = WitnessToken.objects.filter(key_hash=key_hash, user__is_active=True).first()
            if token is None or not token.usable(now):
                return None
            return _over_budget(run_id) or _locked(run_id, token, batch)
        token = plain_append.kept_token(key_hash, now)
        read_now = token is None
        if read_now:
            token = plain_append.read_token(cursor, key_hash=key_hash, now=now)
            if token is None or not token.usable(now):
                return None  # nothing counted: the DRF view refuses it
            plain_append.keep_token(key_hash, token)
        refused = _over_budget(run_id)
        if refused is not None:
            return refused
        appended = plain_append.plain_append(
            cursor, run_id=run_id, token=token, now=timezone.now(), **batch
        )
        if appended is not None:
            return _appended(appended)
        if not read_now:  # the locked append trusts its token: read it anew
            now = timezone.now()
            token = plain_append.read_token(cursor, key_hash=key_hash, now=now)
            if token is None or not token.usable(now):
                plain_append.forget_token(key_hash)
                return None  # revoked or expired meanwhile: the DRF view refuses it
        return _locked(run_id, token.model(), batch)


def _over_budget(run_id: int) -> Answer | None:
    """The batch counted against its run's budget: the refusal when over it (or when the
    budget cannot be counted), else None."""
    try:
        allowed, retry_after = throttle.batch_allowed(run_id)
    except throttle.BudgetUnavailable:
        return Answer.of(answers.cache_down())
    if allowed:
        return None
    return Answer.of(
        answers.too_many(
            f"More than {settings.LIVE_BATCHES_PER_MINUTE} batches a minute for one run.",
            retry_after,
        )
    )


def _locked(run_id: int, token: WitnessToken, batch: dict) -> Answer:
    """The batch appended under the run's lock, parsed behind its head: every answer."""
    try:
        appended = services.live_run_append(run_id=run_id, token=token, **batch)
    except services.LiveRefused as error:
        return Answer.of(answers.refused(error))
    return _appended(appended)


def _appended(appended: services.Appended) -> Answer:
    body = {
        "next_seq": appended.next_seq,
        "replayed": appended.replayed,
        "received_at": appended.received_at,
    }
    return Answer(200, _renderer.render(body))


def lean_answer(request: HttpRequest, pk: int) -> HttpResponse | None:
    """The answer to a plain batch from a usable witness token; None for any other request,
    before anything was counted or written (the DRF view answers it)."""
    batch = plain_batch(request)
    if batch is None:
        return None
    answer = plain_batch_answer(request.META.get("HTTP_AUTHORIZATION", ""), pk, batch)
    if answer is None:
        return None
    response = HttpResponse(
        answer.body, status=answer.status, content_type=JSON, headers=answer.headers
    )
    response["Vary"] = "Accept"
    response["Allow"] = ALLOWED
    return response
