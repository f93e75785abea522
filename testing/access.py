"""The permission table's world and rows: who may do what on every page and endpoint, for a
visitor, the entrant who owns the entries, another entrant and an organizer (staff), with a
published entry and a draft (an entry of a contest whose results are embargoed). Used by
test_permissions.py and test_csrf.py; the `world` fixture is registered by the root conftest.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from runner.heartbeats import worker_beat
from runner.models import RerunSample, VerificationRun
from submissions.entries import services
from submissions.live import services as live_services
from submissions.live.models import LiveRun, WitnessToken
from submissions.models import Submission
from testing.entries import DECLARED, upload
from testing.factories import PASSWORD, ContestFactory, StaffFactory, UserFactory
from testing.logs import python_log

ANON, ENTRANT, OTHER, STAFF = "anonymous", "entrant", "other entrant", "staff"
ACTORS = (ANON, ENTRANT, OTHER, STAFF)
LOGIN = "302 to the log-in page"
ADMIN_LOGIN = "302 to the admin's log-in page"


@dataclass
class World:
    users: dict
    public: object  # a contest whose results are published
    embargoed: object  # a contest whose results are not published yet
    published: Submission  # the entrant's entry in `public`
    draft: Submission  # the entrant's entry in `embargoed`
    public_run: VerificationRun  # succeeded, of the published entry
    draft_run: VerificationRun  # succeeded, of the draft
    running_run: VerificationRun  # running, of the published entry
    public_live: LiveRun | None = None  # the entrant's run streaming into `public`
    draft_live: LiveRun | None = None  # the entrant's run streaming into `embargoed`
    witness_token: WitnessToken | None = None  # the entrant's, for `public`

    def ids(self) -> dict:
        return {
            "published": self.published.pk,
            "draft": self.draft.pk,
            "public_run": self.public_run.pk,
            "draft_run": self.draft_run.pk,
            "running_run": self.running_run.pk,
            "public_live": self.public_live.pk,
            "draft_live": self.draft_live.pk,
            "witness_token": self.witness_token.pk,
        }


@pytest.fixture
def world(db) -> World:
    entrant = UserFactory(username="ada")
    users = {ANON: None, ENTRANT: entrant, OTHER: UserFactory(username="bob")}
    users[STAFF] = StaffFactory(username="olga", is_superuser=True)
    public = ContestFactory(slug="public", title="Public contest", target_rows=5_000_000)
    embargoed = ContestFactory(
        slug="embargoed",
        title="Embargoed contest",
        target_rows=5_000_000,
        results_published_at=timezone.now() + timedelta(days=30),
    )
    published, draft = (
        services.entry_create(
            contest=contest,
            owner=entrant,
            declared={**DECLARED, "entrant_name": name},
            log_file=upload(python_log(rows=rows)),
        )
        for contest, name, rows in (
            (public, "Published Ada", 5_000_000),
            (embargoed, "Draft Ada", 4_000_000),
        )
    )
    runs = []
    for entry, status in ((published, "succeeded"), (draft, "succeeded"), (published, "running")):
        run = VerificationRun.objects.create(
            submission=entry, target="sqlite", rows_target=20_000, status=status, rows_done=10_000
        )
        RerunSample.objects.create(
            run=run, rows=10_000, seconds=1.0, interval_rate=1e4, cumulative_rate=1e4
        )
        runs.append(run)
    # The worker of the running run, beating for its queue: the rerun form offers sqlite.
    worker_beat(worker="world@host", queues=["rerun.sqlite"])
    world = World(users, public, embargoed, published, draft, *runs)
    for contest, field in ((embargoed, "draft_live"), (public, "public_live")):
        token, _ = live_services.witness_token_create(user=entrant, contest=contest)
        run, _ = live_services.live_run_open(
            token=token, run_key=f"world-{contest.slug}", declared=dict(DECLARED), machine={}
        )
        setattr(world, field, run)
        world.witness_token = token
    return world


# -- what a row checks after the request ------------------------------------------------------


def entry_changed(world: World, response) -> bool:
    return Submission.objects.filter(pk=world.published.pk, entrant_name="Changed").exists()


def entry_gone(world: World, response) -> bool:
    return not Submission.objects.filter(pk=world.published.pk).exists()


def entry_added(world: World, response) -> bool:
    return Submission.objects.filter(contest=world.public).count() == 2


def rerun_queued(world: World, response) -> bool:
    return VerificationRun.objects.filter(submission=world.published).count() == 3


def rerun_cancel_asked(world: World, response) -> bool:
    return VerificationRun.objects.get(pk=world.running_run.pk).cancel_requested


def draft_in_api_list(world: World, response) -> bool:
    return world.draft.pk in [entry["id"] for entry in response.json()["results"]]


def draft_name_shown(world: World, response) -> bool:
    return "Draft Ada" in response.content.decode()


def draft_on_page(world: World, response) -> bool:
    return f"/entries/{world.draft.pk}/" in response.content.decode()


def published_on_page(world: World, response) -> bool:
    return f"/entries/{world.published.pk}/" in response.content.decode()


def draft_live_on_page(world: World, response) -> bool:
    return f"/live/{world.draft_live.pk}/" in response.content.decode()


def witness_token_made(world: World, response) -> bool:
    return WitnessToken.objects.count() == 3


def witness_token_revoked(world: World, response) -> bool:
    return WitnessToken.objects.filter(pk=world.witness_token.pk, revoked_at__isnull=False).exists()


def account_made(world: World, response) -> bool:
    return get_user_model().objects.filter(username="newcomer").exists()


def declaration(**changes) -> Callable[[World], dict]:
    def data(world: World) -> dict:
        values = {**DECLARED, **changes}
        values["publish"] = "on"
        values["direct_attached"] = "on"
        return values

    return data


def new_entry_form(world: World) -> dict:
    return {**declaration()(world), "log": upload(python_log(rows=3_000_000))}


def new_entry_api(world: World) -> dict:
    return {"contest": "public", **DECLARED, "log": upload(python_log(rows=3_000_000))}


def preview_log(world: World) -> dict:
    return {"contest": "public", "log": upload(python_log(rows=3_000_000))}


SIGNUP = {
    "username": "newcomer",
    "email": "newcomer@example.org",
    "password1": "a-Long-new-password-77",
    "password2": "a-Long-new-password-77",
}


# -- the table --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    name: str  # the URL name the row covers
    method: str
    path: str  # {published}, {draft}, {public_run}, {draft_run}, {running_run} are filled in
    expect: tuple  # the status for each of ACTORS, in order
    data: dict | Callable[[World], dict] | None = None
    api: bool = False  # REST: authenticated actors send their token
    effect: Callable[[World, object], bool] | None = None
    effect_for: tuple[str, ...] = ()  # the actors for whom `effect` holds afterwards
    format: str = "multipart"  # how an API body is sent: "multipart" or "json"

    @property
    def id(self) -> str:
        return f"{self.method} {self.path}"


def row(name, method, path, anon, entrant, other, staff, **options) -> Row:
    return Row(name, method, path, (anon, entrant, other, staff), **options)


EVERYONE = ACTORS
OWNER_AND_STAFF = (ENTRANT, STAFF)

TABLE = [
    # -- pages for everyone
    row("home", "GET", "/", 200, 200, 200, 200),
    row("signup", "GET", "/accounts/signup/", 200, 200, 200, 200),
    row("signup", "POST", "/accounts/signup/", 302, 302, 302, 302, data=SIGNUP, effect=account_made, effect_for=EVERYONE),
    row("login", "GET", "/accounts/login/", 200, 200, 200, 200),
    row("logout", "GET", "/accounts/logout/", 405, 405, 405, 405),
    row("logout", "POST", "/accounts/logout/", 302, 302, 302, 302),
    row("password_change", "GET", "/accounts/password_change/", LOGIN, 200, 200, 200),
    row("password_change_done", "GET", "/accounts/password_change/done/", LOGIN, 200, 200, 200),
    row("password_reset", "GET", "/accounts/password_reset/", 200, 200, 200, 200),
    row("password_reset_done", "GET", "/accounts/password_reset/done/", 200, 200, 200, 200),
    row("password_reset_confirm", "GET", "/accounts/reset/MQ/bad-token/", 200, 200, 200, 200),
    row("password_reset_complete", "GET", "/accounts/reset/done/", 200, 200, 200, 200),
    row("schema", "GET", "/api/schema/", 200, 200, 200, 200),
    row("swagger-ui", "GET", "/api/docs/", 200, 200, 200, 200),
    row("results_feed", "GET", "/feeds/results.atom", 200, 200, 200, 200, effect=draft_on_page),
    # -- contests and their boards: the embargoed one is for organizers only
    row("contest_detail", "GET", "/contests/public/", 200, 200, 200, 200, effect=published_on_page, effect_for=EVERYONE),
    row("contest_detail", "GET", "/contests/embargoed/", 200, 200, 200, 200, effect=draft_on_page, effect_for=(STAFF,)),
    row("contest_detail", "GET", "/contests/no-such-contest/", 404, 404, 404, 404),
    row("leaderboard_csv", "GET", "/contests/public/leaderboard.csv", 200, 200, 200, 200),
    row("leaderboard_csv", "GET", "/contests/embargoed/leaderboard.csv", 403, 403, 403, 200),
    row("leaderboard_json", "GET", "/contests/public/leaderboard.json", 200, 200, 200, 200),
    row("leaderboard_json", "GET", "/contests/embargoed/leaderboard.json", 403, 403, 403, 200),
    row("api_contests", "GET", "/api/contests/", 200, 200, 200, 200, api=True),
    # -- the open dataset: for everyone; not built in this world (no worker swept it yet)
    row("open_data", "GET", "/open-data/", 200, 200, 200, 200, effect=draft_on_page),
    row("open_data_file", "GET", "/open-data/entries.csv", 404, 404, 404, 404),
    row("api_dataset", "GET", "/api/dataset/", 404, 404, 404, 404, api=True),
    row("api_root", "GET", "/api/", 200, 200, 200, 200, api=True),
    row("api_leaderboard", "GET", "/api/contests/public/leaderboard/", 200, 200, 200, 200, api=True),
    row("api_leaderboard", "GET", "/api/contests/embargoed/leaderboard/", 403, 403, 403, 200, api=True),
    row("host_board", "GET", "/contests/public/host-board/", 200, 200, 200, 200),
    row("host_board", "GET", "/contests/embargoed/host-board/", 403, 403, 403, 200),
    row("host_board_csv", "GET", "/contests/public/host-board.csv", 200, 200, 200, 200),
    row("host_board_csv", "GET", "/contests/embargoed/host-board.csv", 403, 403, 403, 200),
    row("api_host_board", "GET", "/api/contests/public/host-board/", 200, 200, 200, 200, api=True),
    row("api_host_board", "GET", "/api/contests/embargoed/host-board/", 403, 403, 403, 200, api=True),
    row("compare", "GET", "/compare/?ids={published},{draft}", 200, 200, 200, 200, effect=draft_on_page, effect_for=OWNER_AND_STAFF),
    row("seeds_reproduced", "GET", "/seeds/", 200, 200, 200, 200),
    # -- finding entries: a draft only for its owner and the organizers
    row("search", "GET", "/search/?q=Ada", 200, 200, 200, 200, effect=draft_on_page, effect_for=OWNER_AND_STAFF),
    row("engine_page", "GET", "/engines/InnoDB/", 200, 200, 200, 200, effect=draft_on_page, effect_for=OWNER_AND_STAFF),
    row("cpu_page", "GET", "/cpus/Xeon%20X5460/", 200, 200, 200, 200, effect=draft_on_page, effect_for=OWNER_AND_STAFF),
    row("cpu_page", "GET", "/cpus/No%20such%20CPU/", 404, 404, 404, 404),
    # -- entries: drafts for their owner and the organizers (404 for others: under embargo an
    # entry does not exist for them); changes by the owner only
    row("submission_detail", "GET", "/entries/{published}/", 200, 200, 200, 200),
    row("submission_detail", "GET", "/entries/{draft}/", 404, 200, 404, 200),
    row("submission_detail", "GET", "/entries/999999/", 404, 404, 404, 404),
    row("submission_log", "GET", "/entries/{published}/log/", 200, 200, 200, 200),
    row("submission_log", "GET", "/entries/{draft}/log/", 404, 200, 404, 200),
    row("submission_server_config", "GET", "/entries/{published}/server-config.txt", 200, 200, 200, 200),
    row("submission_server_config", "GET", "/entries/{draft}/server-config.txt", 404, 200, 404, 200),
    row("submission_history", "GET", "/entries/{published}/history/", 200, 200, 200, 200),
    row("submission_history", "GET", "/entries/{draft}/history/", 404, 200, 404, 200),
    row("pending_change_decide", "POST", "/changes/999999/approve/", LOGIN, 404, 404, 404),
    row("entry_badge", "GET", "/entries/{published}/badge.svg", 200, 200, 200, 200),
    row("entry_badge", "GET", "/entries/{draft}/badge.svg", 404, 200, 404, 200),
    row("entry_figures", "GET", "/entries/{published}/figures.json", 200, 200, 200, 200),
    row("entry_figures", "GET", "/entries/{draft}/figures.json", 404, 200, 404, 200),
    row("entry_checked", "GET", "/entries/{published}/rules/v1/", 200, 200, 200, 200),
    row("entry_checked", "GET", "/entries/{draft}/rules/v1/", 404, 200, 404, 200),
    row("contest_badge", "GET", "/contests/public/badge.svg", 200, 200, 200, 200),
    row("contest_badge", "GET", "/contests/embargoed/badge.svg", 200, 200, 200, 200, effect=draft_name_shown, effect_for=()),
    row("my_entries", "GET", "/entries/mine/", LOGIN, 200, 200, 200, effect=draft_on_page, effect_for=(ENTRANT,)),
    row("submission_create", "GET", "/contests/public/submit/", LOGIN, 200, 200, 200),
    row("submission_create", "POST", "/contests/public/submit/", LOGIN, 302, 302, 302, data=new_entry_form, effect=entry_added, effect_for=(ENTRANT, OTHER, STAFF)),
    row("submission_edit", "GET", "/entries/{published}/edit/", LOGIN, 200, 403, 403),
    # A draft is missing for another entrant (404 as for an unused id); staff see it, may not edit.
    row("submission_edit", "GET", "/entries/{draft}/edit/", LOGIN, 200, 404, 403),
    row("submission_edit", "POST", "/entries/{published}/edit/", LOGIN, 302, 403, 403, data=declaration(entrant_name="Changed"), effect=entry_changed, effect_for=(ENTRANT,)),
    row("submission_delete", "GET", "/entries/{published}/delete/", LOGIN, 405, 405, 405),
    row("submission_delete", "POST", "/entries/{published}/delete/", LOGIN, 302, 403, 403, effect=entry_gone, effect_for=(ENTRANT,)),
    row("api_submissions", "GET", "/api/submissions/", 200, 200, 200, 200, api=True, effect=draft_in_api_list, effect_for=OWNER_AND_STAFF),
    row("api_submissions", "POST", "/api/submissions/", 401, 201, 201, 201, api=True, data=new_entry_api, effect=entry_added, effect_for=(ENTRANT, OTHER, STAFF)),
    # The preview reads a log and stores nothing, for anyone.
    row("api_submission_preview", "POST", "/api/submissions/preview/", 401, 200, 200, 200, api=True, data=preview_log, effect=entry_added),
    row("api_submission", "GET", "/api/submissions/{published}/", 200, 200, 200, 200, api=True),
    row("api_submission", "GET", "/api/submissions/{draft}/", 404, 200, 404, 200, api=True),
    row("api_submission", "GET", "/api/submissions/999999/", 404, 404, 404, 404, api=True),
    row("api_submission", "PATCH", "/api/submissions/{published}/", 401, 200, 403, 403, api=True, data={"entrant_name": "Changed"}, format="json", effect=entry_changed, effect_for=(ENTRANT,)),
    row("api_submission", "PUT", "/api/submissions/{published}/", 401, 405, 405, 405, api=True, data={"entrant_name": "Changed"}, format="json", effect=entry_changed),
    row("api_submission", "DELETE", "/api/submissions/{published}/", 401, 204, 403, 403, api=True, effect=entry_gone, effect_for=(ENTRANT,)),
    row("api_samples", "GET", "/api/submissions/{published}/samples/", 200, 200, 200, 200, api=True),
    row("api_samples", "GET", "/api/submissions/{draft}/samples/", 404, 200, 404, 200, api=True),
    row("api_samples", "GET", "/api/submissions/{published}/samples/?format=csv", 200, 200, 200, 200, api=True),
    row("api_samples", "GET", "/api/submissions/{draft}/samples/?format=csv", 404, 200, 404, 200, api=True),
    # -- reruns: started and cancelled by organizers; a draft's reruns stay with it
    row("rerun_start", "GET", "/entries/{published}/reruns/", ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, 405),
    row("rerun_start", "POST", "/entries/{published}/reruns/", ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, 302, data={"target": "sqlite", "rows": 20_000, "comparison": "on"}, effect=rerun_queued, effect_for=(STAFF,)),
    row("rerun_cancel", "POST", "/reruns/{running_run}/cancel/", ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, 302, effect=rerun_cancel_asked, effect_for=(STAFF,)),
    row("rerun_judge_again", "POST", "/reruns/{public_run}/judge-again/", ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, 302),
    row("rerun_host_calibrate", "POST", "/reruns/{public_run}/calibrate-host/", ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, 302),
    row("rerun_detail", "GET", "/reruns/{public_run}/", 302, 302, 302, 302),
    row("rerun_detail", "GET", "/reruns/{draft_run}/", 404, 302, 404, 302),
    row("rerun_detail", "GET", "/reruns/{running_run}/", 404, 302, 404, 302),
    row("rerun_log", "GET", "/reruns/{public_run}/log/", 200, 200, 200, 200),
    row("rerun_log", "GET", "/reruns/{draft_run}/log/", 404, 200, 404, 200),
    row("rerun_log", "GET", "/reruns/{running_run}/log/", 404, 200, 404, 200),
    row("api_rerun_start", "POST", "/api/submissions/{published}/reruns/", 401, 403, 403, 202, api=True, data={"target": "sqlite", "rows": 20_000, "comparison": True}, format="json", effect=rerun_queued, effect_for=(STAFF,)),
    row("api_rerun_start", "POST", "/api/submissions/999999/reruns/", 401, 403, 403, 404, api=True, data={"target": "sqlite", "rows": 20_000}, format="json"),
    row("api_rerun", "GET", "/api/reruns/{public_run}/", 200, 200, 200, 200, api=True),
    row("api_rerun", "GET", "/api/reruns/{draft_run}/", 404, 200, 404, 200, api=True),
    row("api_rerun", "GET", "/api/reruns/{running_run}/", 404, 200, 404, 200, api=True),
    row("api_rerun_cancel", "POST", "/api/reruns/{running_run}/cancel/", 401, 403, 403, 202, api=True, effect=rerun_cancel_asked, effect_for=(STAFF,)),
    row("api_rerun_samples", "GET", "/api/reruns/{public_run}/samples/", 200, 200, 200, 200, api=True),
    row("api_rerun_samples", "GET", "/api/reruns/{draft_run}/samples/", 404, 200, 404, 200, api=True),
    # -- verification hosts: organizers only (they name the machines that run reruns)
    row("verification_hosts", "GET", "/verification-hosts/", ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, 200),
    row("api_verification_hosts", "GET", "/api/verification-hosts/", 401, 403, 403, 200, api=True),
    # -- streamed runs: anyone watches a public one; only a witness token streams
    row("live_run_detail", "GET", "/live/{public_live}/", 200, 200, 200, 200),
    row("live_run_detail", "GET", "/live/{draft_live}/", 404, 200, 404, 200),
    row("api_live_run", "GET", "/api/live/{public_live}/", 200, 200, 200, 200, api=True),
    row("api_live_run", "GET", "/api/live/{draft_live}/", 404, 200, 404, 200, api=True),
    row("api_live_runs", "POST", "/api/live/", 401, 401, 401, 401, api=True, data={"run_key": "an-api-token-run"}, format="json"),
    row("api_live_batches", "POST", "/api/live/{public_live}/batches/", 401, 401, 401, 401, api=True, data={"seq": 0, "lines": ["x"]}, format="json"),
    row("api_live_seal", "POST", "/api/live/{public_live}/seal/", 401, 401, 401, 401, api=True, data={"exit_status": 0, "batches": 0}, format="json"),
    row("live_runs_feed", "GET", "/feeds/live.atom", 200, 200, 200, 200, effect=draft_live_on_page),
    row("witness_page", "GET", "/witness/", 200, 200, 200, 200),
    row("witness_client", "GET", "/witness/iibench-witness.py", 200, 200, 200, 200),
    row("contest_stream", "GET", "/contests/public/stream/", LOGIN, 200, 200, 200),
    row("contest_stream", "POST", "/contests/public/stream/", LOGIN, 200, 200, 200, effect=witness_token_made, effect_for=(ENTRANT, OTHER, STAFF)),
    row("api_witness_tokens", "GET", "/api/witness-tokens/", 401, 200, 200, 200, api=True),
    row("api_witness_tokens", "POST", "/api/witness-tokens/", 401, 201, 201, 201, api=True, data={"contest": "public"}, format="json", effect=witness_token_made, effect_for=(ENTRANT, OTHER, STAFF)),
    row("api_witness_token", "DELETE", "/api/witness-tokens/{witness_token}/", 401, 204, 404, 404, api=True, effect=witness_token_revoked, effect_for=(ENTRANT,)),
    # -- accounts and tokens
    row("api_token", "GET", "/api/auth/token/", 405, 405, 405, 405, api=True),
    row("api_token", "POST", "/api/auth/token/", 200, 200, 200, 200, api=True, data={"username": "ada", "password": PASSWORD}),
    row("api_token", "DELETE", "/api/auth/token/", 401, 204, 204, 204, api=True),
    row("api_tokens", "GET", "/api/auth/tokens/", 401, 200, 200, 200, api=True),
    row("account", "GET", "/account/", LOGIN, 200, 200, 200),
    # A page's client has no API token: there is nothing to revoke.
    row("token_revoke", "GET", "/account/tokens/api/revoke/", LOGIN, 405, 405, 405),
    row("token_revoke", "POST", "/account/tokens/api/revoke/", LOGIN, 404, 404, 404),
]  # fmt: skip


def client_for(world: World, actor: str, api: bool):
    user = world.users[actor]
    if api:
        client = APIClient()
        if user is not None:
            token, _ = Token.objects.get_or_create(user=user)
            client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        return client
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def send(entry: Row, world: World, actor: str):
    client = client_for(world, actor, entry.api)
    path = entry.path.format(**world.ids())
    data = entry.data(world) if callable(entry.data) else entry.data
    method = getattr(client, entry.method.lower())
    if entry.method == "GET":
        return method(path)
    if entry.api and entry.format == "json":
        return method(path, json.dumps(data or {}), content_type="application/json")
    if entry.api:
        return method(path, data or {}, format="multipart")
    return method(path, data or {})


def status_of(response) -> int | str:
    location = response.get("Location", "")
    if response.status_code == 302 and location.startswith("/accounts/login/?next="):
        return LOGIN
    if response.status_code == 302 and location.startswith("/admin/login/?next="):
        return ADMIN_LOGIN
    return response.status_code
