"""Cross-site request forgery: every form the site renders carries the CSRF token, and every
write of the permission table, sent by an actor allowed to make it but without the token,
is refused with 403 and changes nothing."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest
from django.test import Client
from rest_framework.test import APIClient

from testing.access import ANON, ENTRANT, STAFF, TABLE, World, status_of

pytestmark = pytest.mark.django_db


class _PostForms(HTMLParser):
    """The POST forms of a page: their action and whether they hold the CSRF token."""

    def __init__(self):
        super().__init__()
        self.forms: list[dict] = []
        self.open: dict | None = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "form" and (attributes.get("method") or "").lower() == "post":
            self.open = {"action": attributes.get("action") or "(this page)", "token": False}
            self.forms.append(self.open)
        elif tag == "input" and self.open and attributes.get("name") == "csrfmiddlewaretoken":
            self.open["token"] = bool(attributes.get("value"))

    def handle_endtag(self, tag):
        if tag == "form":
            self.open = None


def post_forms(html: str) -> list[dict]:
    parser = _PostForms()
    parser.feed(html)
    return parser.forms


# Every page with a POST form, and who sees it.
PAGES_WITH_FORMS = [
    (ANON, "/accounts/login/"),
    (ANON, "/accounts/signup/"),
    (ANON, "/accounts/password_reset/"),
    (ENTRANT, "/"),  # the log-out button in the header
    (ENTRANT, "/contests/public/submit/"),
    (ENTRANT, "/contests/public/stream/"),  # make a witness token
    (ENTRANT, "/entries/{published}/edit/"),
    (ENTRANT, "/accounts/password_change/"),
    (STAFF, "/entries/{published}/"),  # start a rerun, cancel one
    (STAFF, "/admin/submissions/submission/"),
    (STAFF, "/admin/submissions/submission/{published}/change/"),
    (ANON, "/admin/login/"),
]


def test_every_form_on_the_site_carries_the_csrf_token(world: World):
    forms = {}
    for actor, path in PAGES_WITH_FORMS:
        client = Client()
        if world.users[actor]:
            client.force_login(world.users[actor])
        page = client.get(path.format(**world.ids()))
        assert page.status_code == 200, path
        forms[path] = post_forms(page.content.decode())

    assert all(forms.values())  # each page does have a form
    assert {path: [f for f in found if not f["token"]] for path, found in forms.items()} == {
        path: [] for path in forms
    }


WITNESS_TOKEN_ONLY = ("api_live_runs", "api_live_batches", "api_live_seal")

WRITES = [
    pytest.param(entry, actor, id=f"{entry.id} as {actor}")
    for entry in TABLE
    if entry.method in ("POST", "PATCH", "PUT", "DELETE")
    for actor in (entry.effect_for or (ENTRANT,))
    # The token endpoint and token-authenticated API calls carry no cookie to forge with, nor
    # do the witness client's endpoints, which take a witness token and never a session.
    if not (entry.api and actor == ANON) and entry.name not in ("api_token", *WITNESS_TOKEN_ONLY)
]


@pytest.mark.parametrize(("entry", "actor"), WRITES)
def test_a_write_without_the_csrf_token_is_refused_and_changes_nothing(entry, actor, world):
    user = world.users[actor]
    client = APIClient(enforce_csrf_checks=True) if entry.api else Client(enforce_csrf_checks=True)
    if user is not None:
        client.force_login(user)  # a session cookie, as a browser visiting a hostile page has
    path = entry.path.format(**world.ids())
    data = entry.data(world) if callable(entry.data) else entry.data
    method = getattr(client, entry.method.lower())
    if entry.api and entry.format == "json":
        response = method(path, json.dumps(data or {}), content_type="application/json")
    elif entry.api:
        response = method(path, data or {}, format="multipart")
    else:
        response = method(path, data or {})

    assert status_of(response) == 403
    assert "CSRF" in response.content.decode()
    if entry.effect is not None:
        assert entry.effect(world, response) is False
