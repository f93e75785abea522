"""The counts a board keeps (BoardTally, moved by PostgreSQL with every change of an entry)
stay exact through every change, whatever made it: an upload, an edit, a change of
eligibility, a bulk update, a move to another contest, a delete, a bulk insert, a rule
re-check. The board's count and its reference rows' places read from them are the ones a
count of every entry gives."""

import pytest
from django.db.models import F

from submissions.board.order import tally_kept
from submissions.contests.ranks import ranked_q
from submissions.entries import rechecks, services
from submissions.models import BoardTally, Recheck, RecheckStatus, Submission
from testing.boards import every_row
from testing.entries import upload
from testing.factories import (
    ContestFactory,
    ReferenceResultFactory,
    StaffFactory,
    SubmissionFactory,
)
from testing.rule_versions import admin_change_memory_cap

pytestmark = pytest.mark.django_db

DAY = 86_400.0


def kept(contest) -> tuple[int, int]:
    """(entries, ranked entries) as the tally keeps them."""
    rows = BoardTally.objects.filter(contest=contest)
    total = sum(row.entries for row in rows)
    ranked = sum(row.entries for row in rows if row.eligible and row.has_time)
    return total, ranked


def counted(contest) -> tuple[int, int]:
    entries = Submission.objects.filter(contest=contest)
    return entries.count(), entries.filter(ranked_q(contest.track)).count()


def assert_kept(*contests) -> None:
    for contest in contests:
        assert kept(contest) == counted(contest), contest.slug


@pytest.mark.postgresql  # SQLite keeps no tally: its boards count
def test_the_board_counts_are_kept_on_postgresql():
    assert tally_kept(ContestFactory().track)


@pytest.mark.postgresql  # SQLite keeps no tally: its boards count
def test_the_counts_follow_every_change_of_an_entry():
    contest, other = ContestFactory(), ContestFactory()
    entries = [
        SubmissionFactory(contest=contest, seconds_to_target=days * DAY, eligible=days != 3)
        for days in (1, 2, 3, 4)
    ]
    assert_kept(contest, other)
    assert kept(contest) == (4, 3)

    entries[0].eligible = False  # saved by the ORM, as an edit or a re-check saves it
    entries[0].save()
    assert_kept(contest)
    Submission.objects.filter(pk=entries[1].pk).update(seconds_to_target=None)  # bulk update
    assert_kept(contest)
    Submission.objects.filter(pk=entries[2].pk).update(eligible=True, publish=False)
    assert_kept(contest)
    Submission.objects.filter(pk=entries[3].pk).update(contest=other)  # moved
    assert_kept(contest, other)
    Submission.objects.filter(contest=contest).update(terminal_rate=F("terminal_rate"))
    assert_kept(contest)
    entries[2].delete()
    assert_kept(contest)
    Submission.objects.filter(contest=other).delete()  # bulk delete
    assert_kept(contest, other)
    assert kept(other) == (0, 0)

    template = Submission.objects.get(pk=entries[0].pk)
    copies = []
    for number in range(3):
        copy = Submission.objects.get(pk=template.pk)
        copy.pk, copy.log_sha256 = None, f"{number:064d}"
        copy.eligible, copy.seconds_to_target = True, DAY
        copies.append(copy)
    Submission.objects.bulk_create(copies)  # one INSERT of several rows
    assert_kept(contest)
    assert kept(contest) == (5, 3)


@pytest.mark.postgresql  # SQLite keeps no tally: its boards count
def test_an_upload_and_its_deletion_move_the_counts(contest, entrant, declared):
    before = kept(contest)

    entry = services.entry_create(
        contest=contest, owner=entrant, declared=declared, log_file=upload()
    )
    assert_kept(contest)
    assert kept(contest)[0] == before[0] + 1

    services.entry_delete(submission=entry)
    assert kept(contest) == before


@pytest.mark.postgresql  # SQLite keeps no tally: its boards count
def test_a_rule_recheck_moves_the_counts(client, contest, entrant, declared):
    big = services.entry_create(
        contest=contest, owner=entrant, declared={**declared, "memory_gb": 24}, log_file=upload()
    )
    assert not big.eligible
    assert_kept(contest)
    ranked_before = kept(contest)[1]

    admin_change_memory_cap(client, StaffFactory(is_superuser=True), contest, 32)
    recheck = Recheck.objects.get(contest=contest, status=RecheckStatus.QUEUED)
    rechecks.recheck_claim(recheck_id=recheck.pk)
    rechecks.recheck_execute(recheck_id=recheck.pk)

    big.refresh_from_db()
    assert big.eligible
    assert_kept(contest)
    assert kept(contest)[1] == ranked_before + 1


def test_reference_rows_sit_where_the_whole_board_places_them_on_every_page(client):
    """Each page places its reference rows among its own first entries only: the rows, in
    order, are the whole board's read at once, at any page size."""
    contest = ContestFactory()
    for days, rate in [(1, 900), (2, 800), (2, 800), (3, 700), (5, 600), (8, 500), (13, 400)]:
        SubmissionFactory(
            contest=contest, seconds_to_target=days * DAY, elapsed_seconds=days * DAY,
            terminal_rate=rate,
        )  # fmt: skip
    SubmissionFactory(contest=contest, eligible=False)
    for days in (0.5, 2, 4, 20):
        ReferenceResultFactory(contest=contest, elapsed_seconds=days * DAY, terminal_rate=650)

    whole = [(row["reference"], row["id"]) for row in every_row(client, contest, "", 1_000)]

    assert sum(reference for reference, _ in whole) == 4
    assert whole[0][0] and whole[-2][0]  # before every entry, and after the ranked ones
    for page_size in (1, 2, 3, 4, 5):
        paged = [(row["reference"], row["id"]) for row in every_row(client, contest, "", page_size)]
        assert paged == whole, page_size
