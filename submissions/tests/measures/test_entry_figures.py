"""Issue 11 on an entry's page and in the API: measured figures with their source, the
terminal window's basis, estimates with theirs, excerpts and demo data marked."""

from pathlib import Path

import pytest
from rest_framework.test import APIClient

from submissions.contests import ranks as contest_ranks
from submissions.entries import services
from submissions.models import DemoKind
from testing.entries import DECLARED, upload
from testing.factories import ContestFactory, UserFactory

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).parents[1] / "fixtures" / "logs"
DEMO = Path(__file__).parents[2] / "demo_logs"


def create(name: str, folder: Path = FIXTURES, **fields):
    contest = ContestFactory(report_every_rows=1_000_000, **fields)
    return services.entry_create(
        contest=contest,
        owner=UserFactory(),
        declared=dict(DECLARED),
        log_file=upload((folder / name).read_bytes(), name),
        enforce_deadline=False,
    )


def test_a_java_tsv_entry_says_its_seconds_came_from_cum_ips(client):
    entry = create("java-iibench-real-en.tsv", target_rows=2_000_000)
    html = client.get(entry.get_absolute_url()).content.decode()

    assert entry.elapsed_seconds == pytest.approx(2_000_000 / 22_427.81)
    assert "from line 19, tot_inserts / cum_ips" in html
    summary = APIClient().get(f"/api/submissions/{entry.pk}/").json()["summary"]
    assert summary["elapsed_source"] == "line 19, tot_inserts / cum_ips"


def test_a_short_run_states_its_terminal_window_and_its_estimate(client):
    entry = create("python-2023-partial-last-second.log")
    html = client.get(entry.get_absolute_url()).content.decode()

    assert entry.estimated is True
    assert entry.elapsed_seconds == pytest.approx(17.0, abs=0.01)
    assert entry.terminal_rate > 50_000
    assert "widened to the last 5 report intervals" in html
    assert "Elapsed (measured)" in html
    assert "Estimated time to" in html
    assert "at the terminal rate of" in entry.estimate_basis


def test_an_excerpt_is_marked_on_its_page(client):
    entry = create("java-iibench-10s-excerpt-en.log")
    html = client.get(entry.get_absolute_url()).content.decode()

    assert entry.excerpt is True
    assert ">excerpt</span>" in html
    assert "The log is an excerpt" in html
    assert entry.eligible is False


def test_demo_entries_carry_their_flag_on_the_page_and_the_board(client):
    entry = create("python-iibench-postgresql-1m.log", folder=DEMO, target_rows=1_000_000)
    entry.demo = DemoKind.SYNTHETIC
    entry.save()
    contest_ranks.contest_board_changed(contest_id=entry.contest.pk)

    page = client.get(entry.get_absolute_url()).content.decode()
    board = client.get(entry.contest.get_absolute_url()).content.decode()
    csv_text = b"".join(
        client.get(f"/contests/{entry.contest.slug}/leaderboard.csv").streaming_content
    ).decode()

    assert "Synthetic (a made-up log, not a real run)" in page
    assert 'class="badge demo"' in board
    assert ",synthetic," in csv_text
