"""The site's URLs plus the floors `url_walk.py` compares each page with: a bare view, the bare
indexed query of a page of rows and of one entry. Served in the bench's process (Django's test
client) and by gunicorn (`walk_wsgi.py`), so that the floor runs beside the pages it floors."""

from __future__ import annotations

import json

from django.db.models import F
from django.http import HttpRequest, HttpResponse
from django.urls import include, path

from submissions.models import Submission

# The columns a page of entries shows: what a bare read of its rows reads.
FIELDS = (
    "id", "entrant_name", "storage_engine", "cores", "memory_gb", "drive_kind",
    "seconds_to_target", "estimated", "terminal_rate", "average_rate", "verified_now",
    "elapsed_seconds", "cpu_model", "submitted_at",
)  # fmt: skip
# The ranked entries in rank order: migration 0028's board_rank_order_idx.
RANK_ORDER = ("estimated", "seconds_to_target", F("terminal_rate").desc(nulls_last=True), "id")


def bare(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok")


def bare_rows(request: HttpRequest, contest_id: int, size: int) -> HttpResponse:
    """A page's rows as a plain indexed slice: the ranked entries in rank order."""
    entries = Submission.objects.filter(
        contest_id=contest_id, eligible=True, seconds_to_target__isnull=False
    )
    rows = list(entries.order_by(*RANK_ORDER).values(*FIELDS)[:size])
    return HttpResponse(json.dumps(rows, default=str), content_type="application/json")


def bare_entry(request: HttpRequest, pk: int) -> HttpResponse:
    """One entry's row by its key: what an entry page reads at the least."""
    row = Submission.objects.filter(pk=pk).values(*FIELDS).get()
    return HttpResponse(json.dumps(row, default=str), content_type="application/json")


urlpatterns = [
    path("bench/bare/", bare),
    path("bench/rows/<int:contest_id>/<int:size>/", bare_rows),
    path("bench/entry/<int:pk>/", bare_entry),
    path("", include("iibench_site.urls")),
]
