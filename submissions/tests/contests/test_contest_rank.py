"""contest_ranks: the derived ranks follow every change to a contest's entries, and a new entry
writes no other entry's row."""

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from submissions.contests import ranks as contest_ranks
from submissions.entries import services
from submissions.models import Submission
from testing.entries import DECLARED
from testing.factories import ContestFactory, SubmissionFactory, UserFactory
from testing.logs import python_log

pytestmark = pytest.mark.django_db

DAY = 86_400.0


def ranks_of(*entries) -> list[int | None]:
    return [Submission.objects.get(pk=entry.pk).rank for entry in entries]


def test_it_ranks_eligible_entries_by_time_to_target_then_terminal_rate():
    contest = ContestFactory()
    slow = SubmissionFactory(contest=contest, seconds_to_target=19.6 * DAY)
    fast = SubmissionFactory(contest=contest, seconds_to_target=2 * DAY)
    tied_low = SubmissionFactory(contest=contest, seconds_to_target=5 * DAY, terminal_rate=500)
    tied_high = SubmissionFactory(contest=contest, seconds_to_target=5 * DAY, terminal_rate=900)

    contest_ranks.contest_board_changed(contest_id=contest.pk)

    assert ranks_of(fast, tied_high, tied_low, slow) == [1, 2, 3, 4]


def test_it_gives_equal_entries_the_same_rank():
    contest = ContestFactory()
    first = SubmissionFactory(contest=contest, seconds_to_target=DAY, terminal_rate=900)
    second = SubmissionFactory(contest=contest, seconds_to_target=DAY, terminal_rate=900)
    third = SubmissionFactory(contest=contest, seconds_to_target=2 * DAY)

    contest_ranks.contest_board_changed(contest_id=contest.pk)

    assert ranks_of(first, second, third) == [1, 1, 3]


def test_it_never_ranks_ineligible_entries_or_entries_without_a_time():
    contest = ContestFactory()
    ranked = SubmissionFactory(contest=contest, seconds_to_target=9 * DAY)
    broke_a_rule = SubmissionFactory(
        contest=contest, seconds_to_target=DAY, eligible=False, ineligible_reason="Too many cores."
    )
    no_time = SubmissionFactory(contest=contest, seconds_to_target=None)

    contest_ranks.contest_board_changed(contest_id=contest.pk)

    assert ranks_of(ranked, broke_a_rule, no_time) == [1, None, None]


def test_it_ranks_each_contest_on_its_own():
    contest, other = ContestFactory(), ContestFactory()
    mine = SubmissionFactory(contest=contest, seconds_to_target=9 * DAY)
    theirs = SubmissionFactory(contest=other, seconds_to_target=DAY)

    contest_ranks.contest_board_changed(contest_id=contest.pk)
    contest_ranks.contest_board_changed(contest_id=other.pk)

    assert ranks_of(mine, theirs) == [1, 1]


def test_a_newcomer_at_the_top_moves_every_rank_and_writes_no_other_entry():
    contest = ContestFactory()
    others = [
        SubmissionFactory(contest=contest, seconds_to_target=days * DAY) for days in (1, 2, 3)
    ]
    contest_ranks.contest_board_changed(contest_id=contest.pk)

    with CaptureQueriesContext(connection) as queries:
        newcomer = SubmissionFactory(contest=contest, seconds_to_target=0.5 * DAY)

    entry_writes = [
        query["sql"]
        for query in queries.captured_queries
        if query["sql"].startswith(("INSERT", "UPDATE"))
        and '"submissions_submission"' in query["sql"].split("SET")[0]
    ]
    assert len(entry_writes) == 1 and entry_writes[0].startswith("INSERT")
    assert ranks_of(newcomer, *others) == [1, 2, 3, 4]


def test_it_ranks_an_entry_as_it_is_submitted():
    contest = ContestFactory(target_rows=4_000_000, deadline=timezone.now() + timedelta(days=1))
    slow = SubmissionFactory(contest=contest, seconds_to_target=30 * DAY)
    log = SimpleUploadedFile("iibench.log", python_log(rows=5_000_000))

    entry = services.entry_create(
        contest=contest, owner=UserFactory(), declared=dict(DECLARED), log_file=log
    )

    assert entry.eligible, entry.ineligible_reason
    assert ranks_of(entry, slow) == [1, 2]


def test_it_moves_the_others_up_when_an_entry_is_deleted():
    contest = ContestFactory(deadline=timezone.now() + timedelta(days=1))
    first = SubmissionFactory(contest=contest, seconds_to_target=DAY)
    second = SubmissionFactory(contest=contest, seconds_to_target=2 * DAY)
    contest_ranks.contest_board_changed(contest_id=contest.pk)

    services.entry_delete(submission=first)

    assert ranks_of(second) == [1]


def test_it_unranks_an_entry_that_is_no_longer_eligible():
    contest = ContestFactory()
    first = SubmissionFactory(contest=contest, seconds_to_target=DAY)
    second = SubmissionFactory(contest=contest, seconds_to_target=2 * DAY)
    contest_ranks.contest_board_changed(contest_id=contest.pk)
    Submission.objects.filter(pk=first.pk).update(eligible=False)

    contest_ranks.contest_board_changed(contest_id=contest.pk)

    assert ranks_of(first, second) == [None, 1]
