"""Never a 5xx for bad input (issue 40): every URL pattern of the site, each path converter
filled with a hostile value, every query parameter a view reads, every field of each API
serializer (from the OpenAPI schema) and of each HTML form (read from the page itself), and
bodies whose Content-Type lies, sent through the test client with DEBUG off against the real
PostgreSQL (which refuses a NUL in text). One representative of each hostile kind per field:
a NUL, an overlong text, numbers past any column's range, bytes that are not UTF-8.

The answer must be a 4xx, a redirect or a success: never a server error."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from urllib.parse import quote

import pytest
from django.test import Client
from drf_spectacular.generators import SchemaGenerator

from submissions.live import services as live_services
from submissions.web.text_input import NUL_MESSAGE, json_with_nul
from testing.access import ENTRANT, STAFF, TABLE, World
from testing.entries import DECLARED
from testing.factories import PASSWORD, ReferenceResultFactory
from testing.routes import Route, routes

pytestmark = [pytest.mark.django_db, pytest.mark.postgresql]

# Each hostile kind once, as text (query strings and form fields, percent-encoded on the way).
NUL = "a\x00b"
OVERLONG = "x" * 20_000
HUGE = "1" + "0" * 23  # past 2^63, so past every integer column
NEGATIVE_HUGE = "-" + HUGE
HOSTILE_TEXT = {"nul": NUL, "overlong": OVERLONG, "huge": HUGE, "negative": NEGATIVE_HUGE}
NOT_UTF8 = "%FF%FEx%C3"  # percent-encoded bytes that decode to no text
# Path segments: what a converter may be handed (a slug or an int converter refuses the first
# two at the resolver: a 404 already).
HOSTILE_SEGMENTS = {
    "nul": "a%00b",
    "not-utf8": NOT_UTF8,
    "huge": "9" * 30,
    "overlong": "y" * 3_000,
}
# JSON bodies: the same kinds, and the numbers JSON can carry past a column's range.
HOSTILE_JSON = {
    "nul": NUL,
    "overlong": OVERLONG,
    "huge": 10**23,
    "negative": -(10**23),
    "float": 1e23,
    "nul in an object": {"cpu\x00": "a\x00b", "cores": 10**23},
}
# Bodies whose Content-Type says one thing and whose bytes another.
BAD_BODIES = {
    "json not utf8": ("application/json", b'{"contest": "\xff\xfe", "seq": 1}'),
    "json with nul": ("application/json", b'{"contest": "a\\u0000b", "run_key": "x\\u0000"}'),
    "json huge exponent": ("application/json", b'{"seq": 1e999999, "batches": 1e400}'),
    "form not utf8": ("application/x-www-form-urlencoded", b"contest=%FF%FE&q=%00&seq=1e23"),
    "multipart, no boundary": ("multipart/form-data", b"--x\r\n\r\n"),
    "multipart, broken": (
        "multipart/form-data; boundary=zz",
        b'--zz\r\nContent-Disposition: form-data; name="contest"\r\n\r\na\x00b\xff\r\n--zz--\r\n',
    ),
    "text": ("text/plain", b"\x00\xff" * 100),
    "json nested deep": ("application/json", b"[" * 100_000 + b"]" * 100_000),
}

# The query parameters the views read (grep request.GET and query_params), each sent to the
# URLs that read it.
QUERY_PARAMS = {
    "search": ["q"],
    "contest_detail": [
        "sort",
        "engine",
        "drive",
        "verified",
        "trust",
        "page",
        "page_size",
        "costs",
    ],
    "leaderboard_csv": ["sort", "engine", "drive", "verified", "trust", "page_size"],
    "leaderboard_json": ["sort", "engine", "drive", "verified", "trust", "page_size"],
    "api_leaderboard": ["sort", "engine", "drive", "verified", "trust", "page", "page_size"],
    "api_submissions": ["page", "contest", "format"],
    "api_samples": ["format", "after"],
    "api_live_run": ["after"],
    "api_rerun_samples": ["after", "after_id"],
    "host_board": ["host", "sort"],
    "host_board_csv": ["host", "sort"],
    "api_host_board": ["host", "sort"],
    "compare": ["ids", "a", "b", "base"],
    "submission_create": ["kept_log"],
}

# What only an organizer reaches; the rest is sent as the entrant who owns the entries (so the
# owner's pages, the edit form and the witness token's runs are reached too).
STAFF_ONLY = re.compile(r"^(admin/|verification-hosts|reruns/|changes/|entries/<int:pk>/reruns/)")
STAFF_ONLY_NAMES = {"api_rerun_start", "api_rerun_cancel", "api_verification_hosts"}
# Requests that end the session or remove what later requests read go last.
LAST = re.compile(r"(delete|logout|revoke|cancel)")


def real_values(world: World, route: Route) -> dict[str, str]:
    """Each converter of a route filled with a value that reaches the view's work."""
    template = route.template
    if "reruns/<int:pk>" in template:
        pk = world.public_run.pk
    elif "live/<int:pk>" in template:
        pk = world.public_live.pk
    elif "witness-tokens/" in template:
        pk = world.witness_token.pk
    else:
        pk = world.published.pk
    return {
        "pk": str(pk),
        "object_id": str(pk),
        "id": str(world.users[ENTRANT].pk),
        "content_type_id": "1",
        "group0": str(pk),
        "group1": "1",
        "slug": "public",
        "engine": "InnoDB",
        "cpu_model": quote("Xeon X5460"),
        "name": "entries.parquet",
        "decision": "approve",
        "number": "1",
        "kind": "api",
        "app_label": "submissions",
        "uidb64": "MQ",
        "token": "bad-token",
    }


class FormFields(HTMLParser):
    """The names of the fields of a page's forms (text, choices, text areas), read from its HTML."""

    def __init__(self):
        super().__init__()
        self.names: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        name = attrs.get("name")
        if tag not in ("input", "select", "textarea") or not name:
            return
        # Files are the uploads' (another test); the CSRF token is Django's.
        if attrs.get("type") not in ("file", "submit") and name != "csrfmiddlewaretoken":
            self.names.add(name)


def form_fields(html: bytes) -> set[str]:
    parser = FormFields()
    parser.feed(html.decode("utf-8", "replace"))
    return parser.names


@dataclass
class ApiSchema:
    fields: dict[str, set[str]]  # each API path's request fields (every method's body)
    methods: dict[str, set[str]]  # its methods with a body
    query: dict[str, set[str]]  # the query parameters it documents


def api_schema() -> ApiSchema:
    """What the OpenAPI schema says each API path reads."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    fields: dict[str, set[str]] = {}
    methods: dict[str, set[str]] = {}
    query: dict[str, set[str]] = {}
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "query":
                    query.setdefault(path, set()).add(parameter["name"])
            if method not in ("post", "put", "patch"):
                continue
            methods.setdefault(path, set()).add(method)
            for content in operation.get("requestBody", {}).get("content", {}).values():
                ref = content["schema"].get("$ref", "")
                properties = components.get(ref.rsplit("/", 1)[-1], {}).get("properties", {})
                fields.setdefault(path, set()).update(properties)
    return ApiSchema(fields, methods, query)


def schema_path(route: Route) -> str:
    # drf-spectacular names a pk {id}.
    path = re.sub(r"<(?:\w+:)?(\w+)>", lambda match: f"{{{match.group(1)}}}", route.template)
    return "/" + path.replace("{pk}", "{id}")


@dataclass
class Sent:
    method: str
    path: str
    what: str
    status: int


class Fuzzer:
    def __init__(self, world: World):
        self.world = world
        _, self.witness_key = live_services.witness_token_create(
            user=world.users[ENTRANT], contest=world.public
        )
        self.clients = {}
        for actor in (ENTRANT, STAFF):
            client = Client(raise_request_exception=False)
            client.force_login(world.users[actor])
            self.clients[actor] = client
        self.sent: list[Sent] = []

    def client(self, route: Route) -> Client:
        staff = STAFF_ONLY.match(route.template) or route.name in STAFF_ONLY_NAMES
        return self.clients[STAFF if staff else ENTRANT]

    def headers(self, route: Route) -> dict:
        if route.template.startswith("api/live/"):
            return {"HTTP_AUTHORIZATION": f"Bearer {self.witness_key}"}
        return {}

    def send(self, route: Route, method: str, path: str, what: str, **body) -> None:
        client = self.client(route)
        response = getattr(client, method)(path, **body, **self.headers(route))
        self.sent.append(Sent(method.upper(), path[:120], what, response.status_code))

    def server_errors(self) -> list[Sent]:
        return [sent for sent in self.sent if sent.status >= 500]


# The admin's pages are Django's own views, the same for every model: their converters are fuzzed
# on the entries' (with their version history) and the contests' pages, the rest sent as is.
ADMIN_FUZZED = re.compile(r"^admin/(submissions/(submission|contest)/|r/|auth/user/<id>)")


def fuzz_paths(fuzzer: Fuzzer, route: Route) -> None:
    values = real_values(fuzzer.world, route)
    fuzzer.send(route, "get", route.fill(values), "as is")
    if route.template.startswith("admin/") and not ADMIN_FUZZED.match(route.template):
        return
    for _, name in route.converters:
        for kind, segment in HOSTILE_SEGMENTS.items():
            path = route.fill({**values, name: segment})
            fuzzer.send(route, "get", path, f"<{name}> {kind}")


def fuzz_query(fuzzer: Fuzzer, route: Route, documented: set[str]) -> None:
    path = route.fill(real_values(fuzzer.world, route))
    for param in sorted({*QUERY_PARAMS.get(route.name, ["q", "page"]), *documented}):
        for kind, value in HOSTILE_TEXT.items():
            fuzzer.send(route, "get", f"{path}?{param}={quote(value)}", f"?{param} {kind}")
        fuzzer.send(route, "get", f"{path}?{param}={NOT_UTF8}", f"?{param} not utf8")


# Credentials and cookies as a hostile client sends them (HTTP allows no NUL in a header; a
# development server or a front server may let one through).
HOSTILE_AUTHORIZATION = {
    "token nul": "Token a\x00b",
    "token overlong": "Token " + OVERLONG,
    "token latin-1": "Token \xff\xfe",
    "bearer nul": "Bearer iiw_\x00",
    "bearer overlong": "Bearer " + OVERLONG,
}
HOSTILE_COOKIES = {"nul": "a\x00bcdefghij", "overlong": "z" * 4_000, "latin-1": "\xff\xfe" * 10}


def fuzz_credentials(fuzzer: Fuzzer, route: Route) -> None:
    path = route.fill(real_values(fuzzer.world, route))
    for kind, authorization in HOSTILE_AUTHORIZATION.items():
        for method in ("get", "post"):
            response = getattr(Client(raise_request_exception=False), method)(
                path, HTTP_AUTHORIZATION=authorization
            )
            fuzzer.sent.append(
                Sent(method.upper(), path, f"Authorization {kind}", response.status_code)
            )
    for kind, cookie in HOSTILE_COOKIES.items():
        client = Client(raise_request_exception=False)
        client.cookies["sessionid"] = cookie
        response = client.get(path)
        fuzzer.sent.append(Sent("GET", path, f"session cookie {kind}", response.status_code))


def fuzz_bodies(fuzzer: Fuzzer, route: Route, fields: set[str], methods: set[str]) -> None:
    path = route.fill(real_values(fuzzer.world, route))
    for kind, value in HOSTILE_JSON.items():
        body = json.dumps({name: value for name in fields})
        for method in methods:
            fuzzer.send(
                route, method, path, f"json {kind}", data=body, content_type="application/json"
            )
    for kind, value in HOSTILE_TEXT.items():
        fuzzer.send(route, "post", path, f"form {kind}", data={name: value for name in fields})
    for kind, (content_type, body) in BAD_BODIES.items():
        fuzzer.send(route, "post", path, kind, data=body, content_type=content_type)


def base_bodies(world: World) -> dict[str, tuple[str, dict]]:
    """A valid JSON body of each API route that takes one (the permission table's, and the live
    run's open): each field is then made hostile in turn, the others left valid, so the
    hostile one is the only reason for a refusal."""
    bodies = {
        row.name: (row.method.lower(), row.data)
        for row in TABLE
        if row.api and row.format == "json" and isinstance(row.data, dict)
    }
    bodies["api_live_runs"] = ("post", {"run_key": "fuzz-run-0001", **DECLARED})
    bodies["api_token"] = ("post", {"username": "ada", "password": PASSWORD})
    return bodies


def fuzz_fields(fuzzer: Fuzzer, route: Route, method: str, base: dict, fields: set[str]) -> None:
    path = route.fill(real_values(fuzzer.world, route))
    for name in sorted(fields | set(base)):
        for kind, value in HOSTILE_JSON.items():
            body = json.dumps({**base, name: value})
            fuzzer.send(
                route, method, path, f"{name} {kind}", data=body, content_type="application/json"
            )


def page_form_fields(fuzzer: Fuzzer, route: Route) -> set[str]:
    if route.template.startswith(("api/", "admin/")):
        return set()
    path = route.fill(real_values(fuzzer.world, route))
    response = fuzzer.client(route).get(path)
    if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
        return set()
    return form_fields(response.content)


def test_no_url_or_field_answers_a_server_error(world, settings):
    settings.DEBUG = False
    # A board with a published result among its rows (the 2008 contest's) places it by SQL.
    ReferenceResultFactory(contest=world.public, rows=5_000_000, elapsed_seconds=100.0)
    fuzzer = Fuzzer(world)
    schema = api_schema()
    bases = base_bodies(world)
    ordered = sorted(routes(), key=lambda route: bool(LAST.search(route.template)))
    for route in ordered:
        fuzz_paths(fuzzer, route)
        admin = route.template.startswith("admin/")
        if route.template.startswith("api/") or route.name in ("home", "contest_detail"):
            fuzz_credentials(fuzzer, route)
        # The admin's pages share their code: its lists and its log-in read what is sent.
        if not admin or (route.name or "").endswith(("_changelist", "login", "index")):
            fuzz_query(fuzzer, route, schema.query.get(schema_path(route), set()))
        if admin and route.name not in ("login", "logout"):
            continue
        fields = schema.fields.get(schema_path(route), set()) | page_form_fields(fuzzer, route)
        methods = schema.methods.get(schema_path(route), {"post"}) - {"put"}
        fuzz_bodies(fuzzer, route, fields or {"q"}, methods or {"post"})
        if route.name in bases:
            method, base = bases[route.name]
            fuzz_fields(fuzzer, route, method, base, fields)
    errors = fuzzer.server_errors()
    assert len(fuzzer.sent) > 2_000  # every route, every kind: the walk reached them
    assert not errors, (
        "\n".join(f"{sent.status} {sent.method} {sent.path} ({sent.what})" for sent in errors[:60])
        + f"\n({len(errors)} server errors in {len(fuzzer.sent)} requests)"
    )


# -- what a person sees of the refusals ------------------------------------------------------


def test_a_nul_in_a_query_parameter_is_a_400_naming_it(client, world):
    response = client.get("/search/?q=a%00b")
    assert response.status_code == 400
    assert "The parameter q holds a NUL character" in response.content.decode()
    response = client.get("/api/contests/public/leaderboard/?engine=%00")
    assert response.status_code == 400
    assert response.json() == {"engine": ["The parameter engine " + NUL_MESSAGE]}


def test_a_nul_in_the_address_is_no_page(client, world):
    for path in ("/cpus/a%00b/", "/engines/Inno%00DB/"):
        assert client.get(path).status_code == 404


def test_a_nul_in_an_api_body_is_a_400_naming_the_field(client, world):
    client.force_login(world.users[ENTRANT])
    response = client.post(
        "/api/witness-tokens/", {"contest": "a\x00b"}, content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json() == {"contest": ["contest " + NUL_MESSAGE]}


def test_a_nul_in_a_live_runs_machine_facts_is_a_400(client, world):
    _, key = live_services.witness_token_create(user=world.users[ENTRANT], contest=world.public)
    body = {"seq": 0, "lines": ["x"], "machine": {"cpu": "Xeon\x00"}}
    response = client.post(
        f"/api/live/{world.public_live.pk}/batches/",
        json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {key}",
    )
    assert response.status_code == 400
    assert response.json() == {"machine": ["machine.cpu " + NUL_MESSAGE]}


def test_an_overlong_username_is_refused_not_recorded_whole(client, world):
    response = client.post("/api/auth/token/", {"username": "u" * 20_000, "password": "x"})
    assert response.status_code == 400
    assert "username" in response.json()
    response = client.post("/accounts/login/", {"username": "u" * 20_000, "password": "x"})
    assert response.status_code == 200  # the log-in form again, with its error


def test_a_nul_is_found_and_named_wherever_it_is_in_a_json_body():
    assert json_with_nul({"machine": {"cpu": "Xeon\x00"}}) == "machine.cpu"
    assert json_with_nul({"lines": ["a", "b\x00"]}) == "lines[1]"
    assert json_with_nul({"cores\x00": 8}) == "cores\\x00"
    assert json_with_nul(["\x00"]) == "[0]"
    assert json_with_nul({"lines": ["a", 1, None, {"k": [2.5]}]}) is None
    # Nested as deep as a JSON parser goes, over many values: walked without recursion.
    deep: list = [0] * 100_000
    for _ in range(900):
        deep = [deep]
    assert json_with_nul(deep) is None


def test_a_batch_number_past_any_column_is_a_400_naming_seq(client, world):
    _, key = live_services.witness_token_create(user=world.users[ENTRANT], contest=world.public)
    for seq in (10**23, 1e23):
        response = client.post(
            f"/api/live/{world.public_live.pk}/batches/",
            json.dumps({"seq": seq, "lines": ["x"]}),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {key}",
        )
        assert response.status_code == 400, response.content
        assert list(response.json()) == ["seq"]
