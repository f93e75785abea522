"""The live side's pages: a live run, the contest page listing runs above the board, making a
witness token, the trust level on the board (with its filter) and on the entry page."""

import csv
import io
from datetime import timedelta

import pytest
from django.utils import timezone

from submissions.live import services as live
from submissions.live.models import LiveRun
from testing.factories import ContestFactory, SubmissionFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def public_contest(db):
    return ContestFactory(results_published_at=timezone.now() - timedelta(days=1))


def a_run(contest, declared, **fields) -> LiveRun:
    token, _ = live.witness_token_create(user=UserFactory(), contest=contest)
    run, _ = live.live_run_open(
        token=token, run_key="page-run-01", declared=declared, machine={"cores": 8}
    )
    for name, value in fields.items():
        setattr(run, name, value)
    run.save()
    return run


def test_the_contest_page_lists_live_runs_above_the_board_unranked(
    client, public_contest, declared
):
    run = a_run(public_contest, {**declared, "storage_engine": "<b>TokuDB</b>"}, rows=3_000_000)
    page = client.get(public_contest.get_absolute_url()).content.decode()
    assert page.index("Live runs") < page.index('id="leaderboard"')
    assert "Not ranked until sealed" in page
    assert run.get_absolute_url() in page
    assert "&lt;b&gt;TokuDB&lt;/b&gt;" in page and "<b>TokuDB</b>" not in page
    assert "3,000,000" in page


def test_a_sealed_run_leaves_the_live_list(client, public_contest, declared):
    a_run(public_contest, declared, sealed_at=timezone.now())
    assert "Live runs" not in client.get(public_contest.get_absolute_url()).content.decode()


def test_the_live_page_shows_progress_and_what_the_run_saw(client, public_contest, declared):
    machine = {
        "os": "CentOS 5.1",
        "kernel": "2.6.18",
        "cpu_model": "Xeon X5460",
        "sockets": 2,
        "cores": 8,
        "logical_cpus": 8,
        "memory_bytes": 16 * 2**30,
        "datadir": {"path": "/data", "disk": "sda", "kind": "hdd", "filesystem": "ext3"},
        "db": {"scheme": "mysql", "note": "no client library importable (pymysql): not read"},
    }
    run = a_run(public_contest, declared, machine=machine, rows=2_000_000, current_rate=850.0)
    page = client.get(run.get_absolute_url()).content.decode()
    assert "running" in page
    assert "2,000,000" in page and "850" in page
    assert "CentOS 5.1" in page and "ext3" in page and "hdd" in page
    assert "no client library importable" in page
    assert "Not ranked until sealed" in page
    assert "stalled after 10 minutes without a line, abandoned after a day" in page


def test_a_live_run_is_hidden_while_its_contest_is_embargoed(client, declared):
    embargoed = ContestFactory(results_published_at=timezone.now() + timedelta(days=3))
    run = a_run(embargoed, declared)
    assert client.get(run.get_absolute_url()).status_code == 404
    assert client.get(f"/api/live/{run.pk}/").status_code == 404


def test_the_stream_page_shows_a_new_token_once_with_the_two_lines(client, contest):
    user = UserFactory()
    client.force_login(user)
    page = client.get(f"/contests/{contest.slug}/stream/").content.decode()
    assert "Make a witness token" in page and "iiw_" in page  # the placeholder
    made = client.post(f"/contests/{contest.slug}/stream/").content.decode()
    key = made.split('id="witness-token">')[1].split("<")[0]
    assert key.startswith("iiw_")
    assert f"--token {key} --contest {contest.slug}" in made
    assert key not in client.get(f"/contests/{contest.slug}/stream/").content.decode()


def test_the_board_shows_each_entrys_trust_and_filters_by_it(client, public_contest, declared):
    uploaded = SubmissionFactory(contest=public_contest, entrant_name="Uploader")
    verified = SubmissionFactory(contest=public_contest, entrant_name="Rerun", verified=True)
    streamed = SubmissionFactory(contest=public_contest, entrant_name="Streamer")
    a_run(public_contest, declared, submission=streamed, witnessed=True, sealed_at=timezone.now())
    page = client.get(public_contest.get_absolute_url()).content.decode()
    assert page.count('<span class="badge trust streamed"') == 1
    only = client.get(public_contest.get_absolute_url() + "?trust=streamed").content.decode()
    assert "Streamer" in only and "Uploader" not in only and "Rerun" not in only
    api = client.get(f"/api/contests/{public_contest.slug}/leaderboard/?trust=self-reported").json()
    assert [row["id"] for row in api["results"]] == [uploaded.pk]
    response = client.get(f"/contests/{public_contest.slug}/leaderboard.csv?trust=verified")
    text = b"".join(response.streaming_content).decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [(row["id"], row["reference"], row["entrant"]) for row in rows] == [
        (str(verified.pk), "false", "Rerun")
    ]
    assert rows[0]["verified"] == "true" and rows[0]["trust"] == "verified"


def test_the_entry_page_shows_the_trust_and_links_the_stream(client, public_contest, declared):
    streamed = SubmissionFactory(contest=public_contest)
    run = a_run(
        public_contest, declared, submission=streamed, witnessed=True, sealed_at=timezone.now()
    )
    page = client.get(streamed.get_absolute_url()).content.decode()
    assert 'data-trust="streamed"' in page
    assert run.get_absolute_url() in page
    uploaded = SubmissionFactory(contest=public_contest)
    assert 'data-trust="self-reported"' in client.get(uploaded.get_absolute_url()).content.decode()


def test_a_streamed_entrys_badge_and_figures_say_so(client, public_contest, declared):
    streamed = SubmissionFactory(contest=public_contest)
    a_run(public_contest, declared, submission=streamed, witnessed=True, sealed_at=timezone.now())
    assert "streamed" in client.get(f"/entries/{streamed.pk}/badge.svg").content.decode()
    assert client.get(f"/entries/{streamed.pk}/figures.json").json()["trust"] == "streamed"


def test_an_old_link_asking_for_witnessed_entries_gets_the_streamed_ones(
    client, public_contest, declared
):
    SubmissionFactory(contest=public_contest, entrant_name="Uploader")
    streamed = SubmissionFactory(contest=public_contest, entrant_name="Streamer")
    a_run(public_contest, declared, submission=streamed, witnessed=True, sealed_at=timezone.now())
    page = client.get(public_contest.get_absolute_url() + "?trust=witnessed").content.decode()
    assert "Streamer" in page and "Uploader" not in page
    api = client.get(f"/api/contests/{public_contest.slug}/leaderboard/?trust=witnessed").json()
    assert [row["id"] for row in api["results"]] == [streamed.pk]
    entry = client.get(f"/api/submissions/{streamed.pk}/").json()
    assert entry["trust"] == "streamed"
    assert "as reported by the client, not observed by the registry" in entry["trust_means"]
    assert "witnessed" not in client.get(streamed.get_absolute_url()).content.decode()
