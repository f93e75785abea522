"""The live API's refusals as DRF responses, shared by the DRF views (api.py) and the lean path
of a batch (batch_post.py), which answers before the DRF view is reached: one wording and one
status for each, whichever path answers."""

from __future__ import annotations

from django.conf import settings
from rest_framework.response import Response

from submissions.live import services


def refused(error: services.LiveRefused) -> Response:
    return Response({"detail": error.message, **error.details}, status=error.status)


def cache_down() -> Response:
    return Response(
        {"detail": "The registry cannot count requests right now (its cache is down); try again."},
        status=503,
        headers={"Retry-After": "30"},
    )


def batch_too_large(size: int) -> Response:
    return Response(
        {
            "detail": f"The batch is {size:,} bytes; a batch holds at most "
            f"{settings.LIVE_BATCH_MAX_BYTES:,}: send fewer lines at a time."
        },
        status=413,
    )


def too_many(message: str, retry_after: int) -> Response:
    return Response({"detail": message}, status=429, headers={"Retry-After": str(retry_after)})
