"""Hostile requests to start a rerun, through the API and the entry page's form: each a clear
4xx (or the page again with the reason), and no rerun stored or queued; never a 500."""

import json
from dataclasses import dataclass, field

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from runner.heartbeats import worker_beat
from runner.models import VerificationRun
from testing.factories import UserFactory

pytestmark = pytest.mark.django_db

# The sqlite target cannot verify an InnoDB entry: a comparison run is asked for.
VALID = {"rows": 20_000, "target": "sqlite", "comparison": True}
MISSING = object()


@dataclass(frozen=True)
class HostileRerun:
    id: str
    changes: dict = field(default_factory=dict)  # rows/target -> value, or MISSING
    says: str = ""
    field: str = "rows"  # the field the API's refusal names; "" for the whole request
    api: int = 400
    body: str = "json"  # or "raw": `raw` is sent as is, with `content_type`
    raw: bytes = b""
    content_type: str = "application/json"
    web: bool = True  # also through the entry page's form
    web_says: str = ""  # the page's words, when they differ from the API's

    def data(self) -> dict:
        values = {**VALID, **self.changes}
        return {name: value for name, value in values.items() if value is not MISSING}


CORPUS = [
    HostileRerun("negative-rows", {"rows": -1}, "greater than or equal to 1000"),
    HostileRerun("zero-rows", {"rows": 0}, "greater than or equal to 1000"),
    HostileRerun("too-few-rows", {"rows": 999}, "greater than or equal to 1000"),
    HostileRerun("rows-as-words", {"rows": "a million"}, "valid integer", web_says="whole number"),
    HostileRerun(
        "rows-in-exponent-form", {"rows": "1e9"}, "valid integer", web_says="whole number"
    ),
    HostileRerun("fractional-rows", {"rows": "20000.5"}, "valid integer", web_says="whole number"),
    HostileRerun("rows-past-the-target-limit", {"rows": 100_000_001}, "at most 100,000,000 rows"),
    HostileRerun("int64-overflowing-rows", {"rows": 2**63}, "at most 100,000,000 rows"),
    HostileRerun("huge-rows", {"rows": 10**30}, "at most 100,000,000 rows"),
    HostileRerun("null-rows", {"rows": None}, "may not be null", web=False),
    HostileRerun("rows-and-scale", {"scale": 10}, "not both"),
    HostileRerun(
        "zero-scale", {"rows": MISSING, "scale": 0}, "greater than or equal to 1", "scale"
    ),
    HostileRerun(
        "scale-as-words",
        {"rows": MISSING, "scale": "ten"},
        "valid integer",
        "scale",
        web_says="whole number",
    ),
    HostileRerun("too-many-repeats", {"repeats": 11}, "less than or equal to 10", "repeats"),
    HostileRerun(
        "a-target-that-cannot-verify",
        {"comparison": MISSING},
        "The sqlite target runs sqlite; the entry ran mysql",
        "target",
    ),
    HostileRerun("missing-target", {"target": MISSING}, "required", field="target"),
    HostileRerun("blank-target", {"target": ""}, "blank", "target", web_says="required"),
    HostileRerun(
        "unknown-target",
        {"target": "oracle"},
        "Unknown target 'oracle'",
        "target",
        web_says="Select a valid choice",
    ),
    HostileRerun(
        "path-in-target",
        {"target": "../../etc/passwd"},
        "Unknown target",
        "target",
        web_says="Select a valid choice",
    ),
    HostileRerun(
        "shell-in-target",
        {"target": "sqlite; rm -rf /"},
        "Unknown target",
        "target",
        web_says="Select a valid choice",
    ),
    HostileRerun(
        "url-as-target",
        {"target": "mysql://root@evil:3306/x"},
        "Unknown target",
        "target",
        web_says="Select a valid choice",
    ),
    HostileRerun(
        "oversized-target",
        {"target": "s" * 1000},
        "no more than 40",
        "target",
        web_says="Select a valid choice",
    ),
    HostileRerun(
        "target-as-a-list", {"target": ["sqlite"]}, "Not a valid string", "target", web=False
    ),
    HostileRerun(
        "a-json-array",
        body="raw",
        raw=b'[{"rows": 20000, "target": "sqlite"}]',
        says="Expected a dictionary",
        field="non_field_errors",
        web=False,
    ),
    HostileRerun(
        "broken-json",
        body="raw",
        raw=b'{"rows": 20000,',
        says="JSON parse error",
        field="",
        web=False,
    ),
    HostileRerun(
        "text-body",
        body="raw",
        raw=b"rows=20000&target=sqlite",
        content_type="text/plain",
        says="Unsupported media type",
        field="",
        api=415,
        web=False,
    ),
]


@pytest.fixture
def staff_api(organizer) -> APIClient:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=organizer)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def api_post(client: APIClient, url: str, case: HostileRerun):
    if case.body == "raw":
        return client.post(url, data=case.raw, content_type=case.content_type)
    return client.post(url, data=json.dumps(case.data()), content_type="application/json")


@pytest.mark.parametrize("case", CORPUS, ids=[case.id for case in CORPUS])
def test_a_hostile_rerun_request_to_the_api_is_refused_and_nothing_is_queued(
    case, staff_api, entry
):
    response = api_post(staff_api, f"/api/submissions/{entry.pk}/reruns/", case)

    assert response.status_code == case.api, response.content
    body = response.json()
    assert case.says in str(body[case.field] if case.field else body)
    assert VerificationRun.objects.count() == 0


WEB_CASES = [case for case in CORPUS if case.web]


@pytest.mark.parametrize("case", WEB_CASES, ids=[case.id for case in WEB_CASES])
def test_a_hostile_rerun_request_from_the_entry_page_shows_why_and_queues_nothing(
    case, organizer, entry
):
    client = Client()
    client.force_login(organizer)
    data = {name: str(value) for name, value in case.data().items()}
    # A worker serves the sqlite queue: the form offers only targets a live worker serves.
    worker_beat(worker="hostile@host", queues=["rerun.sqlite"])

    response = client.post(f"/entries/{entry.pk}/reruns/", data, follow=True)

    assert response.redirect_chain == [(entry.get_absolute_url(), 302)]
    shown = [str(message) for message in response.context["messages"]]
    assert len(shown) == 1 and (case.web_says or case.says) in shown[0]
    assert VerificationRun.objects.count() == 0


@pytest.mark.parametrize(
    ("who", "expected"), [("anonymous", 401), ("owner", 403), ("another entrant", 403)]
)
def test_only_organizers_may_start_or_cancel_a_rerun_through_the_api(
    who, expected, entry, organizer
):
    client = APIClient()
    if who != "anonymous":
        user = entry.owner if who == "owner" else UserFactory()
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    run = VerificationRun.objects.create(submission=entry, target="sqlite", rows_target=20_000)

    started = api_post(client, f"/api/submissions/{entry.pk}/reruns/", HostileRerun("valid"))
    cancelled = client.post(f"/api/reruns/{run.pk}/cancel/")

    assert (started.status_code, cancelled.status_code) == (expected, expected)
    assert VerificationRun.objects.count() == 1
    run.refresh_from_db()
    assert run.status == "queued" and not run.cancel_requested
