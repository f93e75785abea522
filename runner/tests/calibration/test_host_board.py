"""The host board (issue 29): a contest's standard verification scale, and every verification or
comparison run at it, per registry host, beside what its entry claims; sortable, exported. Runs
stored as a worker stores them (real 1/10 reruns of the demo claim: the fixtures) and judged by
the worker's own path."""

import csv
import io

import pytest

from runner.models import VerificationRun
from submissions.entries.demo import demo_load
from submissions.measures.figures import format_exact_duration
from submissions.models import Contest, Submission
from testing.reruns import DEMO_ENTRY, rejudge, stored_run

pytestmark = pytest.mark.django_db

# Two solutions of the demo claim at 1/10: a 25 MB pool with the default free pages (the rule
# before) and the rule's 14 MB pool with its free pages scaled; their logs say so.
POOL_25MB = [f"iibench-c-mariadb-25mb-pool-300k-{n}.log" for n in (1, 2, 3)]
POOL_14MB = [f"iibench-c-mariadb-14mb-pool-300k-{n}.log" for n in (1, 2, 3)]


@pytest.fixture
def board():
    demo_load()
    entry = Submission.objects.get(entrant_name=DEMO_ENTRY)
    contest = Contest.objects.get(pk=entry.contest_id)
    contest.verification_scale = 10  # as an organizer sets it in the admin
    contest.save()
    slow = stored_run(entry, POOL_25MB, "not_reproduced", "Old.")
    fast = stored_run(entry, POOL_14MB, "not_reproduced", "Old.")
    VerificationRun.objects.filter(pk=fast.pk).update(
        settings={"innodb_buffer_pool_size": "14680064", "innodb_flush_log_at_trx_commit": "2"},
        worker="celery@verify-2",
    )
    VerificationRun.objects.filter(pk=slow.pk).update(worker="celery@verify-1")
    # A run at another scale is not on the board.
    other = stored_run(entry, POOL_14MB[:1], "not_reproduced", "Old.")
    VerificationRun.objects.filter(pk=other.pk).update(scale=5, worker="celery@verify-1")
    rejudge()
    return entry, slow, fast


def test_the_host_board_ranks_the_solutions_measured_at_the_contests_scale(board, client):
    entry, slow, fast = board
    found = client.get(f"/api/contests/{entry.contest.slug}/host-board/").json()
    assert found["scale"] == 10
    assert found["hosts"] == ["verify-1", "verify-2"]
    # Fastest at the scale first: the 14 MB pool's runs (about 20 s each) before the 25 MB's
    # (about 30 s), each with the claim beside it.
    assert [row["run"] for row in found["results"]] == [fast.pk, slow.pk]
    first, second = found["results"]
    assert first["solution"] == (
        "InnoDB with innodb_buffer_pool_size=14M, innodb_flush_log_at_trx_commit=2"
    )
    assert second["solution"].startswith("InnoDB with innodb_buffer_pool_size=25M")
    assert (first["host"], first["scale"], first["repeats"]) == ("verify-2", 10, 3)
    assert 18 < first["seconds_at_scale"] < 23 < 28 < second["seconds_at_scale"] < 32
    assert first["terminal_rate"] > second["terminal_rate"] > 0
    assert 0.45 < first["cliff"] < 0.5
    assert first["claim_seconds"] == pytest.approx(246.4, abs=0.1)
    assert first["claim_cliff"] == pytest.approx(0.46)
    assert first["claim_terminal_rate"] > 0
    # Sorted the other way, and one host only.
    reverse = client.get(f"/api/contests/{entry.contest.slug}/host-board/?sort=-seconds_at_scale")
    assert [row["run"] for row in reverse.json()["results"]] == [slow.pk, fast.pk]
    one = client.get(f"/api/contests/{entry.contest.slug}/host-board/?host=verify-1").json()
    assert [row["run"] for row in one["results"]] == [slow.pk]
    bad = client.get(f"/api/contests/{entry.contest.slug}/host-board/?sort=nonsense")
    assert bad.status_code == 400 and "cannot sort by 'nonsense'" in bad.json()["sort"]


def test_the_host_board_page_is_linked_from_the_contest_and_exports_csv(board, client):
    entry, slow, fast = board
    slug = entry.contest.slug
    contest_page = client.get(f"/contests/{slug}/").content.decode()
    assert f'<a href="/contests/{slug}/host-board/">Host board</a>' in contest_page
    page = client.get(f"/contests/{slug}/host-board/?sort=-terminal_rate").content.decode()
    assert page.index(f'data-run="{fast.pk}"') < page.index(f'data-run="{slow.pk}"')
    assert "innodb_buffer_pool_size=14M" in page and "verify-2" in page
    exported = b"".join(client.get(f"/contests/{slug}/host-board.csv").streaming_content)
    rows = list(csv.DictReader(io.StringIO(exported.decode())))
    assert [int(row["run"]) for row in rows] == [fast.pk, slow.pk]
    assert rows[0]["host"] == "verify-2" and float(rows[0]["seconds_at_scale"]) > 0
    # A contest without a standard scale has no board and no link.
    contest = Contest.objects.get(slug=slug)
    contest.verification_scale = None
    contest.save()
    assert client.get(f"/api/contests/{slug}/host-board/").json()["results"] == []
    assert "host-board" not in client.get(f"/contests/{slug}/").content.decode()


def test_the_host_board_sets_like_beside_like_and_names_each_verdict_whole(board, client):
    entry, slow, fast = board
    VerificationRun.objects.filter(pk=slow.pk).update(verdict="inconclusive")
    found = {row["run"]: row for row in client.get(
        f"/api/contests/{entry.contest.slug}/host-board/"
    ).json()["results"]}  # fmt: skip
    row = found[fast.pk]
    # The claim's rate is the one its entry page states; the runs' are measured by the same
    # rule (the contest's window scaled to the run), each repeat's stored with its verdict.
    assert row["claim_terminal_rate"] == entry.terminal_rate
    fast.refresh_from_db()
    rates = fast.result["terminal_rates"]
    assert len(rates) == 3 and row["terminal_rate"] == pytest.approx(sum(rates) / 3)
    # The time beside a run's is the claim's over the scale, not the full claim's.
    assert row["claim_seconds_at_scale"] == pytest.approx(row["claim_seconds"] / 10)
    page = client.get(f"/contests/{entry.contest.slug}/host-board/").content.decode()
    line = page.split(f'data-run="{fast.pk}"')[1].split("</tr>")[0]
    # In the site's one duration format, as every page says a time.
    assert f"(claim at this scale {format_exact_duration(row['claim_seconds'] / 10)})" in line
    assert f"(claim {entry.terminal_rate:,.0f})" in line
    slow_line = page.split(f'data-run="{slow.pk}"')[1].split("</tr>")[0]
    assert 'data-verdict="inconclusive">Inconclusive</span>' in slow_line
