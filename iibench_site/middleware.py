import ctypes
import ctypes.util
import logging

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string

logger = logging.getLogger(__name__)


class ContentSecurityPolicyMiddleware:
    """Django 5.2 has no CSP of its own: set the header on every response."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", settings.CONTENT_SECURITY_POLICY)
        return response


class DatabaseUnavailableMiddleware:
    """The database down (stopped, restarting, unreachable) is a temporary 503 with Retry-After,
    never a 500: a page for people, {"detail": ...} for the API. Errors raised by views come
    here; those raised by other middleware reach iibench_site.views.server_error."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, DATABASE_DOWN):
            return database_unavailable(request, exception)
        return None


DATABASE_DOWN = (OperationalError, InterfaceError)
DATABASE_DOWN_MESSAGE = (
    "The registry's database is unavailable for a moment. Nothing was stored by this request; "
    "try again shortly."
)


def database_unavailable(request, exception: Exception):
    logger.warning("Database unavailable on %s %s: %s", request.method, request.path, exception)
    retry_after = str(settings.DATABASE_RETRY_AFTER_SECONDS)
    if request.path.startswith("/api/"):
        response = JsonResponse({"detail": DATABASE_DOWN_MESSAGE}, status=503)
    else:
        # No request context: the page must not touch the session or the user (the database).
        body = render_to_string("503.html", {"message": DATABASE_DOWN_MESSAGE})
        response = HttpResponse(body, status=503)
    response["Retry-After"] = retry_after
    return response


def _malloc_trim():
    """glibc's malloc_trim, or None where the C library has none (musl, macOS)."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


MALLOC_TRIM = _malloc_trim()
# A request body beyond this is an upload whose reading freed tens of MB.
LARGE_REQUEST_BYTES = 1 << 20


class FreedMemoryMiddleware:
    """After a request that carried an upload, hand the memory it freed back to the system.
    glibc keeps freed blocks under MALLOC_MMAP_THRESHOLD_ in its heaps: a worker held ~20 MB
    more after each 2,000,000-report upload, and the next upload peaked that much higher
    (bench/upload_speed.py). malloc_trim(0) gives the free pages back in about 10 ms, a
    request of seconds."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > LARGE_REQUEST_BYTES and MALLOC_TRIM is not None:
            MALLOC_TRIM(0)
        return response
