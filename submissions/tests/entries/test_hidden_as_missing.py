"""A hidden entry answers exactly as a missing one (issue 40): for someone not allowed to see it,
every entry-scoped URL (the entry's pages and API, its reruns and its streamed run) gives the
same status and the same body for an entry under embargo as for an id that was never used, so
hidden ids cannot be counted."""

from __future__ import annotations

import hashlib
import re

import pytest
from django.test import Client

from submissions.models import Submission
from testing.access import ANON, OTHER, World
from testing.routes import Route, routes

pytestmark = pytest.mark.django_db

# The URL prefixes whose <int:pk> names an entry, a rerun or a live run, and the world's hidden
# one of each. The live run's batches and seal answer the witness token alone.
HIDDEN = {
    "entries/": "draft",
    "api/submissions/": "draft",
    "reruns/": "draft_run",
    "api/reruns/": "draft_run",
    "live/": "draft_live",
    "api/live/": "draft_live",
}
METHODS = ("get", "post", "patch", "delete")


def scoped_routes() -> list[Route]:
    found = []
    for route in routes():
        if "<int:pk>" not in route.template or route.template.endswith(("batches/", "seal/")):
            continue
        if any(route.template.startswith(f"{prefix}<int:pk>") for prefix in HIDDEN):
            found.append(route)
    return found


def hidden_kind(route: Route) -> str:
    prefix = route.template.split("<int:pk>", 1)[0]
    return HIDDEN[prefix]


def client_for(actor: str, world: World) -> Client:
    client = Client(raise_request_exception=False)
    user = world.users[actor]
    if user is not None:
        client.force_login(user)
    return client


# The headers an answer could tell a hidden entry by (an ETag made from it, a type, a cache).
TELLING_HEADERS = ("ETag", "Content-Type", "Cache-Control", "Allow", "Vary")


def answer(client: Client, method: str, path: str, pk: int) -> tuple:
    response = getattr(client, method)(path)
    body = response.content.decode("utf-8", "replace")
    # The page's own address and its per-request CSRF token are all that may differ.
    body = re.sub(r'(csrfmiddlewaretoken" value=")[^"]+', r"\1", body)
    in_path = re.compile(rf"(?<=/){pk}(?=[/#?\"&]|$)")
    headers = {name: response.get(name) for name in TELLING_HEADERS}
    return (
        response.status_code,
        in_path.sub("ID", response.get("Location", "")),
        in_path.sub("ID", body),
        headers,
    )


def test_every_entry_scoped_url_answers_a_hidden_id_as_a_missing_one(world, settings):
    settings.DEBUG = False
    ids = world.ids()
    missing = 10 + max(ids.values())
    checked = 0
    for actor in (ANON, OTHER):
        client = client_for(actor, world)
        for route in scoped_routes():
            hidden = ids[hidden_kind(route)]
            for method in METHODS:
                values = {"number": "1"}
                hidden_answer = answer(
                    client, method, route.fill({**values, "pk": str(hidden)}), hidden
                )
                missing_answer = answer(
                    client, method, route.fill({**values, "pk": str(missing)}), missing
                )
                assert hidden_answer == missing_answer, (actor, method, route.template)
                checked += 1
    assert checked >= 2 * 4 * 15


def test_the_edit_page_of_a_hidden_entry_is_missing_not_forbidden(client, world):
    client.force_login(world.users[OTHER])
    assert client.get(f"/entries/{world.draft.pk}/edit/").status_code == 404
    # A visible entry says who may change it.
    assert client.get(f"/entries/{world.published.pk}/edit/").status_code == 403


def test_the_api_says_no_such_entry_for_both(world):
    client = Client()
    for pk in (world.draft.pk, 999_999):
        response = client.get(f"/api/submissions/{pk}/")
        assert (response.status_code, response.json()) == (404, {"detail": "No such entry."})


def test_a_guessed_etag_does_not_tell_a_hidden_entry(client, world):
    """The badge's ETag is made of the entry's id and its contest's board version and results
    date, which can be guessed: sent back, it must not answer 304 for a hidden entry."""
    version = (
        Submission.objects.filter(pk=world.draft.pk)
        .values_list("contest__board_version", "contest__results_published_at")
        .first()
    )
    digest = hashlib.sha256(f"{world.draft.pk}:{version}:False".encode()).hexdigest()[:20]
    for path in (f"/entries/{world.draft.pk}/badge.svg", f"/entries/{world.draft.pk}/figures.json"):
        assert client.get(path, HTTP_IF_NONE_MATCH=f'"{digest}"').status_code == 404
