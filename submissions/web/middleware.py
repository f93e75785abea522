from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string

# Room for the form's other fields on top of the log itself.
FORM_OVERHEAD_BYTES = 1024 * 1024


class UploadSizeLimitMiddleware:
    """Refuse an oversized upload from its Content-Length, before Django reads the body."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.LOG_UPLOAD_MAX_BYTES + FORM_OVERHEAD_BYTES
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > limit:
            return too_large_response(request, length)
        return self.get_response(request)


def too_large_message(size: int) -> str:
    cap = settings.LOG_UPLOAD_MAX_BYTES
    return (
        f"The upload is {size:,} bytes; logs are limited to {cap:,} bytes. "
        "Compress it with gzip (.gz) and send it again."
    )


def too_large_response(request: HttpRequest, size: int) -> HttpResponse:
    message = too_large_message(size)
    if request.path.startswith("/api/"):
        return JsonResponse({"log": [message]}, status=413)
    body = render_to_string("413.html", {"message": message}, request=request)
    return HttpResponse(body, status=413)
