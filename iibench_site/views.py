from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

BAD_REQUEST = (
    "The request could not be read: too many fields or files, more than 2 MB of text, "
    "or a request cut short."
)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """A request Django refused before any view read it: JSON for API clients, a page for people."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": BAD_REQUEST}, status=400)
    return defaults.bad_request(request, exception)
