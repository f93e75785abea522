"""The home page's engine chart is read from the bests kept per contest, engine and month
(issue 44: a cold home page grouped every eligible entry): every save and delete of an entry
keeps them, so the chart a visitor sees is the one the entries make, and a cold home page reads
as many queries at two registry sizes."""

import random
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.db.models import Max
from django.db.models.functions import TruncMonth
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from submissions.board.engine_bests import engine_bests_rebuild
from submissions.contests.ranks import contest_board_changed
from submissions.models import EngineMonthBest, Submission
from testing.factories import ContestFactory, SubmissionFactory

pytestmark = pytest.mark.django_db


def chart() -> dict:
    cache.clear()
    lines = Client().get("/").context["engine_chart"]
    return {line["name"]: (line["months"], line["rates"]) for line in lines}


def kept() -> set:
    return {
        (row.contest_id, row.storage_engine, row.month, row.best)
        for row in EngineMonthBest.objects.all()
    }


def grouped() -> set:
    """What the chart grouped from every entry before: the bests it must keep."""
    rows = (
        Submission.objects.filter(eligible=True)
        .exclude(storage_engine="")
        .annotate(month=TruncMonth("submitted_at"))
        .values("contest_id", "storage_engine", "month")
        .annotate(best=Max("average_rate"))
    )
    return {
        (row["contest_id"], row["storage_engine"], row["month"].date(), row["best"])
        for row in rows
        if row["best"]
    }


def months_ago(months: int):
    return timezone.now() - timedelta(days=31 * months)


def test_the_chart_rises_with_a_faster_upload_and_falls_back_when_it_goes():
    contest = ContestFactory()
    SubmissionFactory(contest=contest, storage_engine="InnoDB", average_rate=1_000.0,
                      submitted_at=months_ago(3))  # fmt: skip
    # The line is the best so far, carried to today.
    assert set(chart()["InnoDB"][1]) == {1_000.0}
    faster = SubmissionFactory(contest=contest, storage_engine="InnoDB", average_rate=5_000.0)
    assert chart()["InnoDB"][1][0] == 1_000.0 and chart()["InnoDB"][1][-1] == 5_000.0
    faster.eligible = False
    faster.save()
    assert set(chart()["InnoDB"][1]) == {1_000.0}
    faster.eligible = True
    faster.storage_engine = "MyRocks"
    faster.save()
    shown = chart()
    assert set(shown["InnoDB"][1]) == {1_000.0} and shown["MyRocks"][1][-1] == 5_000.0
    faster.delete()
    assert "MyRocks" not in chart()


def test_an_unpublished_contest_stays_off_the_chart():
    hidden = ContestFactory(results_published_at=None)
    SubmissionFactory(contest=hidden, storage_engine="Secret", average_rate=9e9)
    SubmissionFactory(storage_engine="InnoDB", average_rate=1_000.0)
    assert set(chart()) == {"InnoDB"}


def test_the_kept_bests_are_what_grouping_every_entry_gives_after_any_changes():
    rng = random.Random(44)
    contests = [ContestFactory(), ContestFactory()]
    entries = []
    for step in range(60):
        action = rng.random()
        if action < 0.5 or not entries:
            entries.append(SubmissionFactory(
                contest=rng.choice(contests), storage_engine=rng.choice(["InnoDB", "TokuDB"]),
                average_rate=float(rng.randint(1, 9) * 100), submitted_at=months_ago(rng.randint(0, 3)),
                eligible=rng.random() < 0.8, log_sha256=f"{step:064x}",
            ))  # fmt: skip
        elif action < 0.8:
            entry = rng.choice(entries)
            field = rng.choice(["average_rate", "eligible", "storage_engine", "submitted_at"])
            entry.average_rate = float(rng.randint(1, 9) * 100)
            entry.eligible = rng.random() < 0.8 if field == "eligible" else entry.eligible
            if field == "storage_engine":
                entry.storage_engine = rng.choice(["InnoDB", "TokuDB", "MyRocks"])
            if field == "submitted_at":
                entry.submitted_at = months_ago(rng.randint(0, 3))
            entry.save()
        else:
            entries.pop(rng.randrange(len(entries))).delete()
        assert kept() == grouped(), step


def test_a_cold_home_page_reads_as_many_queries_at_two_sizes():
    template = SubmissionFactory(storage_engine="InnoDB", average_rate=1_000.0)
    fields = [f for f in Submission._meta.concrete_fields if not f.primary_key]
    counts = []
    for size in (20, 200):
        copies = []
        for number in range(Submission.objects.count(), size):
            values = {field.attname: getattr(template, field.attname) for field in fields}
            values.update(log_sha256=f"{number:064x}", submitted_at=months_ago(number % 12))
            copies.append(Submission(**values))
        Submission.objects.bulk_create(copies)
        contest_board_changed(contest_id=template.contest_id)
        cache.clear()
        with CaptureQueriesContext(connection) as queries:
            assert Client().get("/").status_code == 200
        counts.append(len(queries.captured_queries))
        # The entries are not grouped by month (what the chart read before): its kept bests are.
        assert not any("DATE_TRUNC" in q["sql"].upper() for q in queries.captured_queries)
        assert any("submissions_enginemonthbest" in q["sql"] for q in queries.captured_queries)
    assert counts[0] == counts[1]


def test_entries_written_without_saves_are_charted_once_rebuilt():
    """A bench's fill writes its rows by INSERT ... SELECT: it makes the bests again after."""
    template = SubmissionFactory(storage_engine="InnoDB", average_rate=1_000.0)
    values = {f.attname: getattr(template, f.attname) for f in Submission._meta.concrete_fields}
    del values["id"]
    Submission.objects.bulk_create(
        [Submission(**{**values, "log_sha256": "f" * 64, "average_rate": 7_000.0,
                       "storage_engine": "TokuDB", "submitted_at": months_ago(2)})]
    )  # fmt: skip
    assert kept() != grouped()
    assert engine_bests_rebuild() == 2 and kept() == grouped()


def test_a_visitors_cached_home_page_shows_a_new_engine_at_once():
    SubmissionFactory(storage_engine="InnoDB", average_rate=1_000.0)
    visitor = Client()
    assert "InnoDB" in visitor.get("/").content.decode()
    assert "NewEngine" not in visitor.get("/").content.decode()  # served from the cache
    SubmissionFactory(storage_engine="NewEngine", average_rate=9_000.0)
    assert "NewEngine" in visitor.get("/").content.decode()


def test_a_cold_home_page_finds_the_best_verified_entry_without_counting_them():
    """The verified board's first page counted every verified entry (up to 10,000) for the
    one row the home page shows: the best verified entry is read from the top of its index."""
    contest = ContestFactory(title="Billion rows")
    SubmissionFactory(contest=contest, entrant_name="Fast", elapsed_seconds=2 * 86_400.0)
    for number, days in enumerate((9, 4, 6)):
        SubmissionFactory(contest=contest, entrant_name=f"Checked {number}",
                          elapsed_seconds=days * 86_400.0, verified=True)  # fmt: skip
    contest_board_changed(contest_id=contest.pk)
    cache.clear()
    with CaptureQueriesContext(connection) as queries:
        html = Client().get("/").content.decode()
    best = html[html.index("leaders-table") : html.index("</table>")]
    assert "Checked 1" in best and "Checked 0" not in best and "Checked 2" not in best
    counts = [q["sql"] for q in queries.captured_queries if "COUNT(" in q["sql"].upper()]
    assert not any("verified" in sql.lower() for sql in counts), counts
