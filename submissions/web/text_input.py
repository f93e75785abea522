"""Text a request hands the registry, refused in one place before any view, form or query reads
it: PostgreSQL refuses a NUL (0x00) in text and JSON, so a NUL that reached a lookup was a 500.
No field, parameter or address of the registry means a NUL: it is refused with a 400 naming
where it was (a 404 in the address itself, which names no page).

The middlewares check the cookies, the Authorization header, the address and the query string of
every request; the API's parsers
(`DEFAULT_PARSER_CLASSES`) check every JSON, form and multipart body they read. Django's forms
refuse a NUL in their own text fields already (ProhibitNullCharactersValidator)."""

from __future__ import annotations

from collections.abc import Iterable

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from rest_framework.exceptions import ParseError
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser

NUL = "\x00"
NUL_MESSAGE = "holds a NUL character (0x00), which no text here may hold."


def nul_refusal(name: str) -> str:
    return f"{name} {NUL_MESSAGE}"


def pair_with_nul(pairs: Iterable[tuple[str, object]]) -> str | None:
    """The name of the first (name, value) pair holding a NUL in its name or its text value."""
    for name, value in pairs:
        if NUL in name or (isinstance(value, str) and NUL in value):
            return name.replace(NUL, "\\x00")
    return None


def json_with_nul(value) -> str | None:
    """Where in a parsed JSON value a NUL is (`machine.cpu`, `lines[3]`), or None. Walked with
    a stack, not recursion, and each place kept as a link to its parent, written out only for
    the NUL found: a deeply nested body costs its size, not its depth times its size."""
    stack: list[tuple[object, tuple | None]] = [(value, None)]
    while stack:
        item, place = stack.pop()
        if isinstance(item, str):
            if NUL in item:
                return _place_text(place)
        elif isinstance(item, dict):
            for key, inner in item.items():
                if NUL in str(key):
                    return _place_text((place, str(key)))
                stack.append((inner, (place, str(key))))
        elif isinstance(item, list):
            stack.extend((inner, (place, index)) for index, inner in enumerate(item))
    return None


def _place_text(place: tuple | None) -> str:
    """`machine.cpu`, `lines[3]` from the chain of (parent, key or index) links."""
    parts = []
    while place is not None:
        place, step = place
        parts.append(f"[{step}]" if isinstance(step, int) else f".{step}")
    text = "".join(reversed(parts)).lstrip(".").replace(NUL, "\\x00")
    return text or "the body"


class TextHeadersMiddleware:
    """Before the session and the credentials are read: a cookie holding a NUL is dropped (no
    cookie the registry sets holds one; the visitor is anonymous then), and an Authorization
    header holding one is a 400 (HTTP allows neither; a front server may let one through)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        for name in [name for name, value in request.COOKIES.items() if NUL in name + value]:
            del request.COOKIES[name]
        if NUL in request.META.get("HTTP_AUTHORIZATION", ""):
            message = "The Authorization header " + NUL_MESSAGE
            return JsonResponse({"detail": message}, status=400)
        return self.get_response(request)


class TextInputMiddleware:
    """A NUL in the address is no page (404); in a query parameter, a 400 naming it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if NUL in request.path_info:
            raise Http404("No such page: its address holds a NUL character (0x00).")
        name = pair_with_nul(
            (name, value) for name, values in request.GET.lists() for value in values
        )
        if name is not None:
            return refused(request, name, nul_refusal(f"The parameter {name}"))
        return self.get_response(request)


def refused(request: HttpRequest, name: str, message: str) -> HttpResponse:
    if request.path.startswith("/api/"):
        return JsonResponse({name: [message]}, status=400)
    body = render_to_string("400.html", {"message": message}, request=request)
    return HttpResponse(body, status=400)


def _refuse_nul(where: str | None) -> None:
    """A 400 under the field the NUL is in (DRF's shape), or `detail` when the body itself is."""
    if where is not None:
        top = where.split(".", 1)[0].split("[", 1)[0]
        if top in ("", "the body"):
            raise ParseError(nul_refusal(where.capitalize()))
        raise ParseError({top: [nul_refusal(where)]})


class TextJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply.") from None
        _refuse_nul(json_with_nul(data))
        return data


class TextFormParser(FormParser):
    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        _refuse_nul(
            pair_with_nul((name, value) for name, values in data.lists() for value in values)
        )
        return data


class TextMultiPartParser(MultiPartParser):
    def parse(self, stream, media_type=None, parser_context=None):
        parsed = super().parse(stream, media_type, parser_context)
        fields = parsed.data
        _refuse_nul(
            pair_with_nul((name, value) for name, values in fields.lists() for value in values)
        )
        _refuse_nul(
            pair_with_nul((name, upload.name or "") for name, upload in parsed.files.items())
        )
        return parsed
