"""The live side's pages: a live run growing, making a witness token ("stream a run"), and the
witness client itself with its SHA-256."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_http_methods

from submissions.entries.selectors import seen_or_404
from submissions.entries.trust import STREAMED, TRUST_SENTENCES, entry_trust
from submissions.live import selectors, services
from submissions.live.models import LiveRun
from submissions.models import Contest

CLIENT_PATH = Path(settings.BASE_DIR) / "witness" / "iibench_witness.py"
CLIENT_NAME = "iibench-witness.py"


@cache
def client_file() -> tuple[bytes, str]:
    """The client as served, and its SHA-256 (read once: it changes only with a deploy)."""
    body = CLIENT_PATH.read_bytes()
    return body, hashlib.sha256(body).hexdigest()


def live_run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    runs = LiveRun.objects.select_related("contest", "submission")
    run = seen_or_404(
        runs, pk, lambda run: selectors.live_run_visible(run, request.user), "live run"
    )
    context = {
        "run": run,
        "state": run.state(),
        "figures": selectors.live_figures(run),
        "interval": selectors.last_interval(run),
        "datadir": (run.machine or {}).get("datadir") or {},
        "db": (run.machine or {}).get("db") or {},
        "trust": entry_trust(run.submission) if run.submission else None,
        "stalled_after": _duration(settings.LIVE_STALLED_SECONDS),
        "abandoned_after": _duration(settings.LIVE_ABANDONED_SECONDS),
    }
    return render(request, "live/live_run.html", context)


def _duration(seconds: int) -> str:
    if seconds % 86400 == 0:
        days = seconds // 86400
        return "a day" if days == 1 else f"{days} days"
    if seconds % 3600 == 0:
        return f"{seconds // 3600} hours"
    return f"{round(seconds / 60)} minutes"


def _client_context(request: HttpRequest, contest: Contest | None) -> dict:
    _, sha256 = client_file()
    return {
        "contest": contest,
        "client_url": request.build_absolute_uri(f"/witness/{CLIENT_NAME}"),
        "registry_url": request.build_absolute_uri("/").rstrip("/"),
        "sha256": sha256,
        "streamed_means": TRUST_SENTENCES[STREAMED],
    }


@login_required
@require_http_methods(["GET", "POST"])
def contest_stream(request: HttpRequest, slug: str) -> HttpResponse:
    """Make a witness token for the contest; the token is shown on this answer only."""
    contest = get_object_or_404(Contest, slug=slug)
    context = _client_context(request, contest)
    if request.method == "POST":
        if not contest.is_open():
            context["closed"] = True
        else:
            _, context["token"] = services.witness_token_create(user=request.user, contest=contest)
    return render(request, "live/stream.html", context)


def witness_page(request: HttpRequest) -> HttpResponse:
    return render(request, "live/stream.html", _client_context(request, None))


def witness_client(request: HttpRequest) -> HttpResponse:
    body, sha256 = client_file()
    response = HttpResponse(body, content_type="text/x-python; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{CLIENT_NAME}"'
    response["X-Content-SHA256"] = sha256
    return response
