"""The witness API: tokens, opening a live run, appending batches, sealing, and the hostile
answers (replays, gaps, oversized batches, sealed runs, other people's runs and contests)."""

from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from submissions.live.models import LiveBatch, LiveRun, WitnessToken
from submissions.measures.costs import CostFigures
from submissions.models import Submission
from testing.factories import ContestFactory, UserFactory
from testing.logs import python_log
from testing.witness_rig import MACHINE, api_client, append, open_run, witness_client

pytestmark = pytest.mark.django_db


def log_lines(**kwargs) -> list[str]:
    return python_log(**kwargs).decode().splitlines()


def test_a_witness_token_is_made_with_the_api_token_and_only_its_hash_is_kept(contest, entrant):
    response = api_client(entrant).post("/api/witness-tokens/", {"contest": contest.slug})
    assert response.status_code == 201
    key = response.json()["token"]
    assert key.startswith("iiw_")
    token = WitnessToken.objects.get(pk=response.json()["id"])
    assert token.user == entrant and token.contest == contest
    assert key not in token.key_hash


def test_a_witness_token_needs_a_logged_in_user(contest):
    assert APIClient().post("/api/witness-tokens/", {"contest": contest.slug}).status_code == 401


def test_a_witness_token_opens_nothing_but_live_runs(contest, entrant, declared):
    client = witness_client(entrant, contest)
    # Not an API token: the upload endpoint does not know it.
    assert client.post("/api/submissions/", {"contest": contest.slug}).status_code == 401


def test_a_run_streams_and_seals_into_an_entry_equal_to_an_upload(contest, entrant, declared):
    client = witness_client(entrant, contest)
    opened = open_run(client, declared)
    assert opened.status_code == 201, opened.content
    run_id = opened.json()["id"]
    assert opened.json()["live"] == "running"
    lines = log_lines()
    for seq, start in enumerate(range(0, len(lines), 3)):
        answer = append(client, run_id, seq, lines[start : start + 3])
        assert answer.status_code == 200, answer.content
        assert answer.json()["next_seq"] == seq + 1
    batches = seq + 1
    progress = APIClient().get(f"/api/live/{run_id}/")
    assert progress.status_code in (200, 403)
    sealed = client.post(
        f"/api/live/{run_id}/seal/", {"exit_status": 0, "batches": batches}, format="json"
    )
    assert sealed.status_code == 200, sealed.content
    body = sealed.json()
    assert body["live"] == "sealed"
    entry = Submission.objects.get(pk=body["entry"]["id"])
    other = ContestFactory(target_rows=contest.target_rows)
    upload = api_client(entrant).post(
        "/api/submissions/",
        {"contest": other.slug, **declared, "log": _file(python_log())},
        format="multipart",
    )
    assert upload.status_code == 201, upload.content
    uploaded = upload.json()["summary"]
    assert body["entry"]["summary"] == uploaded
    assert entry.log.read() == python_log()
    # A replayed log cannot keep up with its own clock: it says hours passed in a second.
    clock = next(v for v in body["seal_verdicts"] if v["rule"] == "clock_agrees")
    assert clock["status"] == "fail"
    assert "the registry received the line" in clock["message"]
    assert body["trust"] == "self-reported"
    assert body["entry"]["trust"] == "self-reported"
    assert body["entry"]["live"] == "sealed"
    assert entry.eligible is False


def _file(data: bytes):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("iibench.log", data)


@pytest.fixture
def streaming(contest, entrant, declared):
    client = witness_client(entrant, contest)
    run_id = open_run(client, declared).json()["id"]
    return client, run_id


def test_a_replayed_batch_is_acknowledged_and_not_stored_twice(streaming):
    client, run_id = streaming
    assert append(client, run_id, 0, ["a", "b"]).status_code == 200
    again = append(client, run_id, 0, ["a", "b"])
    assert again.status_code == 200
    assert again.json() == {**again.json(), "replayed": True, "next_seq": 1}
    assert LiveBatch.objects.filter(run_id=run_id).count() == 1
    assert LiveRun.objects.get(pk=run_id).line_count == 2


def test_a_batch_replayed_with_other_lines_is_refused(streaming):
    client, run_id = streaming
    append(client, run_id, 0, ["a"])
    answer = append(client, run_id, 0, ["changed"])
    assert answer.status_code == 409
    assert answer.json()["expected_seq"] == 1


def test_an_out_of_order_batch_gets_409_with_the_expected_seq(streaming):
    client, run_id = streaming
    append(client, run_id, 0, ["a"])
    answer = append(client, run_id, 5, ["b"])
    assert answer.status_code == 409
    assert answer.json()["expected_seq"] == 1
    assert "expects batch 1" in answer.json()["detail"]


def test_an_oversized_batch_gets_413_and_nothing_is_stored(streaming, settings):
    settings.LIVE_BATCH_MAX_BYTES = 10_000
    client, run_id = streaming
    answer = append(client, run_id, 0, ["x" * 5000, "y" * 6000])
    assert answer.status_code == 413
    assert "at most 10,000" in answer.json()["detail"]
    assert not LiveBatch.objects.filter(run_id=run_id).exists()


def test_a_flood_of_batches_gets_429(streaming, settings):
    settings.LIVE_BATCHES_PER_MINUTE = 3
    client, run_id = streaming
    codes = [append(client, run_id, seq, ["line"]).status_code for seq in range(5)]
    assert codes[:3] == [200, 200, 200]
    assert 429 in codes[3:]


def test_a_sealed_run_takes_no_more_lines(streaming):
    client, run_id = streaming
    append(client, run_id, 0, ["a"])
    client.post(f"/api/live/{run_id}/seal/", {"exit_status": 1, "batches": 1}, format="json")
    answer = append(client, run_id, 1, ["more"])
    assert answer.status_code == 403
    assert "sealed" in answer.json()["detail"]


def test_a_seal_with_batches_missing_is_refused_naming_the_next(streaming):
    client, run_id = streaming
    append(client, run_id, 0, ["a"])
    answer = client.post(
        f"/api/live/{run_id}/seal/", {"exit_status": 0, "batches": 3}, format="json"
    )
    assert answer.status_code == 409
    assert answer.json()["expected_seq"] == 1


def test_someone_elses_run_is_not_found(streaming, contest, declared):
    _, run_id = streaming
    intruder = witness_client(UserFactory(), contest)
    assert append(intruder, run_id, 0, ["a"]).status_code == 404


def test_a_token_for_another_contest_is_refused(streaming, contest, entrant, declared):
    _, run_id = streaming
    elsewhere = witness_client(entrant, ContestFactory())
    assert append(elsewhere, run_id, 0, ["a"]).status_code == 403
    opened = elsewhere.post(
        "/api/live/",
        {**declared, "run_key": "another-key-1", "contest": contest.slug},
        format="json",
    )
    assert opened.status_code == 403


def test_a_revoked_token_streams_no_more(contest, entrant, declared):
    response = api_client(entrant).post("/api/witness-tokens/", {"contest": contest.slug})
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {response.json()['token']}")
    run_id = open_run(client, declared).json()["id"]
    deleted = api_client(entrant).delete(f"/api/witness-tokens/{response.json()['id']}/")
    assert deleted.status_code == 204
    answer = append(client, run_id, 0, ["a"])
    assert answer.status_code == 401
    assert "revoked" in answer.json()["detail"]


def test_a_retried_open_finds_the_same_run(contest, entrant, declared):
    client = witness_client(entrant, contest)
    first = open_run(client, declared)
    again = open_run(client, declared)
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json()["id"] == again.json()["id"]


def test_a_bad_declaration_is_refused_naming_the_field(contest, entrant, declared):
    client = witness_client(entrant, contest)
    answer = open_run(client, {**declared, "cores": "many"})
    assert answer.status_code == 400
    assert "cores" in answer.json()
    assert not LiveRun.objects.exists()


def test_a_silent_run_is_stalled_then_abandoned(streaming, settings):
    _, run_id = streaming
    run = LiveRun.objects.get(pk=run_id)
    now = timezone.now()
    assert run.state(now + timedelta(minutes=9)) == "running"
    assert run.state(now + timedelta(minutes=11)) == "stalled"
    assert run.state(now + timedelta(days=1, minutes=1)) == "abandoned"
    settings.LIVE_STALLED_SECONDS = 60
    assert run.state(now + timedelta(minutes=2)) == "stalled"


def test_the_machine_the_run_saw_must_be_the_declared_one(contest, entrant, declared):
    client = witness_client(entrant, contest)
    machine = {**MACHINE, "cores": 2, "logical_cpus": 2, "datadir": {"kind": "ssd"}}
    run_id = open_run(client, declared, machine=machine).json()["id"]
    append(client, run_id, 0, log_lines())
    body = client.post(
        f"/api/live/{run_id}/seal/", {"exit_status": 0, "batches": 1}, format="json"
    ).json()
    verdict = next(v for v in body["seal_verdicts"] if v["rule"] == "machine_declared")
    assert verdict["status"] == "fail"
    assert "cores: declared 8, the client reported 2" in verdict["message"]
    assert "drive: declared hdd, the client reported ssd" in verdict["message"]


def test_the_feed_announces_runs_that_start_and_seal(client, contest, entrant, declared):
    contest.results_published_at = timezone.now() - timedelta(days=1)
    contest.save()
    witness = witness_client(entrant, contest)
    run_id = open_run(witness, declared).json()["id"]
    assert f"live run #{run_id} (InnoDB) started" in client.get("/feeds/live.atom").text
    append(witness, run_id, 0, log_lines())
    witness.post(f"/api/live/{run_id}/seal/", {"exit_status": 0, "batches": 1}, format="json")
    feed = client.get("/feeds/live.atom").text
    assert f"live run #{run_id} (InnoDB) sealed, not streamed" in feed
    assert f"live run #{run_id} (InnoDB) started" in feed


def test_the_site_serves_the_client_with_its_sha256(client):
    import hashlib

    from submissions.live.views import CLIENT_PATH

    body = client.get("/witness/iibench-witness.py")
    assert body.status_code == 200
    digest = hashlib.sha256(CLIENT_PATH.read_bytes()).hexdigest()
    assert (
        b"".join(body.streaming_content if body.streaming else [body.content])
        == CLIENT_PATH.read_bytes()
    )
    assert digest in client.get("/witness/").text


def test_a_cache_that_is_down_gets_503_and_nothing_is_stored(streaming, settings):
    client, run_id = streaming
    # A Redis that is not there: a port nothing listens on.
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
        }
    }
    answer = append(client, run_id, 0, ["a"])
    assert answer.status_code == 503
    assert answer["Retry-After"] == "30"
    assert not LiveBatch.objects.filter(run_id=run_id).exists()


def test_a_user_lists_their_witness_tokens_without_the_keys(contest, entrant):
    made = api_client(entrant).post("/api/witness-tokens/", {"contest": contest.slug}).json()
    api_client(UserFactory()).post("/api/witness-tokens/", {"contest": contest.slug})
    listed = api_client(entrant).get("/api/witness-tokens/").json()
    assert [(t["id"], t["contest"], t["revoked_at"]) for t in listed] == [
        (made["id"], contest.slug, None)
    ]
    assert "token" not in listed[0]


def test_output_ending_without_a_newline_is_kept_as_it_was(streaming):
    client, run_id = streaming
    client.post(
        f"/api/live/{run_id}/batches/",
        {"seq": 0, "lines": ["first", "last, no newline"], "unterminated": True},
        format="json",
    )
    assert LiveBatch.objects.get(run_id=run_id).text == "first\nlast, no newline"


@pytest.mark.parametrize("target_rows", [3_500_000, 20_000_000])
def test_live_progress_has_the_figures_of_the_whole_log(entrant, declared, target_rows):
    import io

    from submissions.logparse import parse_log
    from submissions.measures.figures import compute_figures

    contest = ContestFactory(
        target_rows=target_rows, results_published_at=timezone.now() - timedelta(days=1)
    )
    client = witness_client(entrant, contest)
    run_id = open_run(client, declared).json()["id"]
    log = python_log(rows=8_000_000)
    for seq, line in enumerate(log.decode().splitlines()):
        append(client, run_id, seq, [line])
    body = APIClient().get(f"/api/live/{run_id}/").json()
    whole = compute_figures(parse_log(io.BytesIO(log)).series, target_rows=target_rows)
    assert body["rows"] == 8_000_000
    assert body["terminal_rate"] == pytest.approx(whole.terminal_rate)
    assert body["seconds_to_target"] == pytest.approx(whole.estimated_seconds_to_target)
    assert [s["rows"] for s in body["samples"]] == [n * 1_000_000 for n in range(1, 9)]
    later = APIClient().get(f"/api/live/{run_id}/?after={body['samples'][-1]['id']}").json()
    assert later["samples"] == []


def spring_2009_log(reports: int) -> bytes:
    """The Python iibench layout of spring 2009, whose #seconds is the interval."""
    lines = ["#rows #seconds cum_ips table_size last_ips #queries cum_qps last_qps"]
    total = 0.0
    for n in range(1, reports + 1):
        interval = 100.0 + n
        total += interval
        rows = n * 1_000_000
        lines.append(
            f"{rows} {interval:.1f} {rows / total:.1f} {rows} {1_000_000 / interval:.1f} 0 0.0 0.0"
        )
    return ("\n".join(lines) + "\n").encode()


def test_a_long_log_of_interval_seconds_keeps_its_elapsed_time_live(entrant, declared):
    import io

    from submissions.logparse import parse_log

    contest = ContestFactory(results_published_at=timezone.now() - timedelta(days=1))
    client = witness_client(entrant, contest)
    run_id = open_run(client, declared).json()["id"]
    log = spring_2009_log(120)  # past the 60 lines kept whole
    lines = log.decode().splitlines()
    for seq, start in enumerate(range(0, len(lines), 7)):
        append(client, run_id, seq, lines[start : start + 7])
    body = APIClient().get(f"/api/live/{run_id}/").json()
    whole = parse_log(io.BytesIO(log)).series
    assert [s["seconds"] for s in body["samples"]] == pytest.approx(list(whole.seconds))


def test_a_session_cannot_stream_so_there_is_nothing_to_forge(client, contest, entrant, declared):
    client.force_login(entrant)
    answer = client.post(
        "/api/live/", {**declared, "run_key": "session-run-1"}, content_type="application/json"
    )
    assert answer.status_code == 401
    assert not LiveRun.objects.exists()


def test_the_account_page_and_the_token_list_show_witness_tokens(client, contest, entrant):
    made = api_client(entrant).post("/api/witness-tokens/", {"contest": contest.slug}).json()
    listed = api_client(entrant).get("/api/auth/tokens/").json()["tokens"]
    witness = [token for token in listed if token["kind"] == "witness"]
    assert [(t["id"], t["prefix"]) for t in witness] == [(str(made["id"]), "iiw_")]
    assert f"streaming runs into {contest.title}" in witness[0]["scope"]
    client.force_login(entrant)
    page = client.get("/account/").content.decode()
    assert f"streaming runs into {contest.title}" in page
    assert made["token"] not in page
    api_client(entrant).delete(f"/api/witness-tokens/{made['id']}/")
    listed = api_client(entrant).get("/api/auth/tokens/").json()["tokens"]
    assert [token["kind"] for token in listed] == ["api"]


FORMAT3 = (
    Path(__file__).resolve().parents[2]
    / "tests"
    / "fixtures"
    / "logs"
    / "iibench-c-format3-mariadb.log"
)
# The cost figures an entry stores (all of CostFigures but the size per 100M rows, derived).
COST_FIGURES = tuple(
    name for name in CostFigures.__dataclass_fields__ if name != "gb_per_100m_rows"
)


def streamed_format3(entrant, declared) -> tuple[APIClient, int, int]:
    """The format 3 fixture streamed in batches of 40 lines: (client, run id, batches)."""
    contest = ContestFactory(
        target_rows=100_000, results_published_at=timezone.now() - timedelta(days=1)
    )
    client = witness_client(entrant, contest)
    run_id = open_run(client, declared).json()["id"]
    lines = FORMAT3.read_text().splitlines()
    starts = range(0, len(lines), 40)
    for seq, start in enumerate(starts):
        assert append(client, run_id, seq, lines[start : start + 40]).status_code == 200
    return client, run_id, len(starts)


def test_a_streamed_c_run_carries_the_cost_figures_of_its_upload(entrant, declared):
    """The C benchmark's cost columns, streamed: the live samples hold them, the live figures
    and the sealed entry give what an upload of the same log gives."""
    import io

    from submissions.logparse import parse_log
    from submissions.logparse.model import COST_FIELDS

    log = FORMAT3.read_bytes()
    series = parse_log(io.BytesIO(log)).series
    client, run_id, batches = streamed_format3(entrant, declared)
    progress = APIClient().get(f"/api/live/{run_id}/").json()
    samples = progress["samples"]
    assert [s["rows"] for s in samples] == list(series.rows)
    for name in COST_FIELDS:
        assert [s["cost"].get(name) for s in samples] == list(getattr(series, name)), name

    upload = api_client(entrant).post(
        "/api/submissions/",
        {"contest": ContestFactory(target_rows=100_000).slug, **declared, "log": _file(log)},
        format="multipart",
    )
    assert upload.status_code == 201, upload.content
    uploaded = Submission.objects.get(pk=upload.json()["id"])
    assert uploaded.machine_cpu_us_per_row is not None
    for name in COST_FIGURES:
        assert progress["cost"][name] == pytest.approx(getattr(uploaded, name)), name

    sealed = client.post(
        f"/api/live/{run_id}/seal/", {"exit_status": 0, "batches": batches}, format="json"
    ).json()
    entry = Submission.objects.get(pk=sealed["entry"]["id"])
    for name in COST_FIGURES:
        assert getattr(entry, name) == getattr(uploaded, name), name
    assert entry.series.preview["cost"] == uploaded.series.preview["cost"]
    summary = {key: sealed["entry"]["summary"][key] for key in COST_FIGURES}
    assert summary == {key: upload.json()["summary"][key] for key in COST_FIGURES}


def test_a_streamed_log_without_costs_has_none_live(streaming):
    client, run_id = streaming
    for seq, line in enumerate(log_lines()):
        append(client, run_id, seq, [line])
    body = APIClient().get(f"/api/live/{run_id}/").json()
    assert body["cost"] is None
    assert all(sample["cost"] == {} for sample in body["samples"])


def test_the_live_page_shows_what_each_row_cost_so_far(client, entrant, declared):
    _, run_id, _ = streamed_format3(entrant, declared)
    cost = APIClient().get(f"/api/live/{run_id}/").json()["cost"]
    page = client.get(f"/live/{run_id}/").content.decode()
    section = page[page.index('id="live-costs"') :]
    assert "hidden" not in section[: section.index(">")]
    assert f"{cost['machine_cpu_us_per_row']:,.2f}" in section
    assert f"{cost['write_kb_per_row']:,.2f}" in section


MARIADB_100K = (
    Path(__file__).resolve().parents[2]
    / "tests"
    / "fixtures"
    / "logs"
    / "iibench-c-mariadb-100k-cadence.log"
)


@pytest.mark.parametrize("batch_lines", [7, 25, 400])
def test_a_real_mariadb_run_with_its_long_header_is_live_to_the_last_line_sent(
    entrant, declared, batch_lines, settings
):
    """Issue 30: the C benchmark's header on MariaDB is ~700 `# setting` lines. After every
    batch the live run shows the last report sent, its whole curve so far."""
    lines = MARIADB_100K.read_text().splitlines()
    assert sum(line.startswith("# setting ") for line in lines) > 600
    settings.LIVE_BATCHES_PER_MINUTE = 10_000
    contest = ContestFactory(
        target_rows=1_000_000, results_published_at=timezone.now() - timedelta(days=1)
    )
    client = witness_client(entrant, contest)
    run_id = open_run(client, declared).json()["id"]
    sent = []
    for seq, start in enumerate(range(0, len(lines), batch_lines)):
        batch = lines[start : start + batch_lines]
        assert append(client, run_id, seq, batch).status_code == 200
        sent += batch
        reports = [int(line.split("\t")[0]) for line in sent if line[:1].isdigit()]
        body = APIClient().get(f"/api/live/{run_id}/").json()
        assert body["rows"] == (reports[-1] if reports else 0), (seq, start)
        assert [s["rows"] for s in body["samples"]] == reports
    assert reports == [100_000, 200_000, 300_000, 400_000, 500_000]
