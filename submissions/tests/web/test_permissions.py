"""Who may do what: one table over every page and endpoint of the site, for a visitor, the
entrant who owns the entries, another entrant and an organizer (staff), with a published
entry and a draft (an entry of a contest whose results are embargoed).

Each row gives the exact status per actor and, for a write or a read that depends on who
asks, what happened (stored or not, shown or not). A URL pattern without a row fails
test_every_url_of_the_site_has_a_row; the admin's many URLs are swept by their own test.
"""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.authtoken.models import Token

from submissions.contests import reference_rows
from submissions.models import Submission
from testing.access import (
    ACTORS,
    ADMIN_LOGIN,
    ANON,
    ENTRANT,
    OTHER,
    STAFF,
    TABLE,
    World,
    client_for,
    send,
    status_of,
)

pytestmark = pytest.mark.django_db

CASES = [
    pytest.param(entry, actor, expected, id=f"{entry.id} as {actor}")
    for entry in TABLE
    for actor, expected in zip(ACTORS, entry.expect, strict=True)
]


# 400 cases, each on a world of its own (100 s): `make test-fast` leaves the table to `make test`.
@pytest.mark.slow
@pytest.mark.parametrize(("entry", "actor", "expected"), CASES)
def test_each_actor_gets_exactly_what_the_table_says(entry, actor, expected, world):
    response = send(entry, world, actor)

    assert status_of(response) == expected
    if entry.effect is not None:
        assert entry.effect(world, response) == (actor in entry.effect_for)


def url_names(patterns, namespace: str = "") -> set[str]:
    names = set()
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            names |= url_names(pattern.url_patterns, inner)
        elif isinstance(pattern, URLPattern):
            names.add(f"{namespace}{pattern.name}")
    return names


def test_every_url_of_the_site_has_a_row():
    site = {
        name for name in url_names(get_resolver().url_patterns) if not name.startswith("admin:")
    }
    assert site - {entry.name for entry in TABLE} == set()


# -- the admin: every URL, swept -------------------------------------------------------------


def admin_urls(world: World) -> list[tuple[str, str]]:
    """(route, a URL of it) for every route of the admin, with real objects' ids."""
    from django.contrib.contenttypes.models import ContentType

    objects = {
        model: model._default_manager.order_by("pk").first() for model in admin.site._registry
    }
    urls = []
    for pattern in admin.site.get_urls():
        route = str(pattern.pattern)
        if isinstance(pattern, URLResolver):  # a model's admin
            model = next(
                m
                for m in admin.site._registry
                if route == f"{m._meta.app_label}/{m._meta.model_name}/"
            )
            found = objects[model]
            object_id = str(found.pk) if found is not None else "1"
            for inner in pattern.url_patterns:
                inner_route = str(inner.pattern)
                path = inner_route.replace("<path:object_id>", object_id).replace("<id>", object_id)
                if inner_route == "^([^/]+)/history/([^/]+)/$":  # django-simple-history's record
                    record = found.history.order_by("history_id").first()
                    path = f"{object_id}/history/{record.history_id}/"
                urls.append((route + inner_route, f"/admin/{route}{path}"))
        elif "content_type_id" in route:
            kind = ContentType.objects.get_for_model(Submission)
            urls.append((route, f"/admin/r/{kind.pk}/{world.published.pk}/"))
        elif "app_label" in route:
            urls.append((route, "/admin/submissions/"))
        elif "(?P<url>" in route:
            urls.append((route, "/admin/no-such-page/"))
        else:
            urls.append((route, f"/admin/{route}"))
    return urls


# What an organizer (a superuser) gets on each admin route; the others all get the admin's
# log-in page, whatever the route.
ADMIN_STAFF_STATUS = {
    "": 200,
    "login/": 302,
    "logout/": 405,
    "password_change/": 200,
    "password_change/done/": 200,
    "autocomplete/": 403,
    "jsi18n/": 200,
    "r/<path:content_type_id>/<path:object_id>/": 302,
    "^(?P<app_label>auth|authtoken|axes|runner|submissions)/$": 200,
    "(?P<url>.*)$": 404,
}
NO_ADD = {
    "runner/verificationrun/",
    "submissions/pendingchange/",
    "axes/accessattempt/",
    "axes/accesslog/",
    "axes/accessfailurelog/",
}


def admin_staff_status(route: str) -> int:
    if route in ADMIN_STAFF_STATUS:
        return ADMIN_STAFF_STATUS[route]
    if route.endswith("/add/"):
        return 403 if route.removesuffix("add/") in NO_ADD else 200
    if route.endswith("<path:object_id>/"):
        return 302  # the old change URL redirects to the new one
    return 200


@pytest.fixture
def one_of_each_admin_model(world) -> None:
    """Every model the admin shows has a row, so its change, history and delete pages exist."""
    from axes.models import AccessAttempt, AccessFailureLog, AccessLog
    from django.contrib.auth.models import Group

    from submissions.models import PendingChange

    Group.objects.create(name="judges")
    PendingChange.objects.create(
        submission=world.published, declared={"memory_gb": 32}, requested_by=world.users[ENTRANT]
    )
    reference_rows.reference_results_create(contest=world.public)
    Token.objects.create(user=world.users[ENTRANT])
    attempt = {"user_agent": "curl", "ip_address": "192.0.2.1", "username": "ada", "path_info": "/"}
    AccessAttempt.objects.create(**attempt, get_data="", post_data="", failures_since_start=1)
    AccessLog.objects.create(**attempt)
    AccessFailureLog.objects.create(**attempt)


def test_every_admin_url_is_for_organizers_only(world, one_of_each_admin_model):
    urls = admin_urls(world)
    refused = {}
    for actor in (ANON, ENTRANT, OTHER):
        client = client_for(world, actor, api=False)
        refused[actor] = {route: status_of(client.get(url)) for route, url in urls}
    organizer = client_for(world, STAFF, api=False)
    allowed = {route: organizer.get(url).status_code for route, url in urls}

    # Their log-in page, and the log-out that sends whoever is not staff to the admin's index.
    login_page = {"login/": 200, "logout/": 302}
    for actor in (ANON, ENTRANT, OTHER):
        assert refused[actor] == {route: login_page.get(route, ADMIN_LOGIN) for route, _ in urls}
    assert allowed == {route: admin_staff_status(route) for route, _ in urls}
    assert len(urls) == len(set(route for route, _ in urls)) > 60
