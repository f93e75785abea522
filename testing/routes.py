"""Every URL pattern of the site as a route with its converters, to fill with values (the fuzz
over every URL, and the hidden-as-missing comparison of every entry-scoped URL)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.urls import URLPattern, URLResolver, get_resolver


@dataclass(frozen=True)
class Route:
    template: str  # e.g. "entries/<int:pk>/edit/"; a regex route's groups as <re:name>
    name: str | None

    @property
    def converters(self) -> list[tuple[str, str]]:
        return re.findall(r"<(?:(\w+):)?(\w+)>", self.template)

    def fill(self, values: dict[str, str]) -> str:
        def one(match: re.Match) -> str:
            return values[match.group(2)]

        return "/" + re.sub(r"<(?:(\w+):)?(\w+)>", one, self.template)


def _template(pattern) -> str:
    text = str(pattern)
    if type(pattern).__name__ != "RegexPattern":
        return text
    text = text.lstrip("^").rstrip("$")
    text = re.sub(r"\(\?P<(\w+)>[^)]*\)", r"<re:\1>", text)
    # Unnamed groups (the history of one version): numbered.
    count = iter(range(10))
    text = re.sub(r"\([^)]*\)", lambda _: f"<re:group{next(count)}>", text)
    return text.replace("\\", "")


def routes(patterns=None, prefix: str = "") -> list[Route]:
    found = []
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(pattern, URLResolver):
            found += routes(pattern.url_patterns, prefix + _template(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            found.append(Route(prefix + _template(pattern.pattern), pattern.name))
    # The admin's catch-all (any path) is the site's 404, fuzzed by every other route.
    return [route for route in found if "<re:url>" not in route.template]
