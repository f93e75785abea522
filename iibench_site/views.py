import sys

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

from iibench_site.middleware import DATABASE_DOWN, database_unavailable

BAD_REQUEST = (
    "The request could not be read: too many fields or files, more than 2 MB of text, "
    "or a request cut short."
)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """A request Django refused before any view read it: JSON for API clients, a page for people."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": BAD_REQUEST}, status=400)
    return defaults.bad_request(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """A database outage raised outside a view (in a middleware: the session, the log-in
    lockout) is still a 503; anything else is the plain 500 page."""
    error = sys.exc_info()[1]
    if isinstance(error, DATABASE_DOWN):
        return database_unavailable(request, error)
    return defaults.server_error(request)
