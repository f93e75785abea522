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
