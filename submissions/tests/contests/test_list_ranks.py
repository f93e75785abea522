"""A list of entries reads their ranks at once (contests.ranks.ranks_known: one window per
contest), never a count per row: the admin's list of entries and the search show each entry's
rank, in the same number of queries for 3 entries as for 12."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from submissions.contests.ranks import entry_rank, ranks_known
from submissions.models import Submission
from testing.factories import ContestFactory, StaffFactory, SubmissionFactory

pytestmark = pytest.mark.django_db

DAY = 86_400.0


def board(entries: int, contest=None):
    contest = contest or ContestFactory()
    for number in range(entries):
        SubmissionFactory(
            contest=contest, seconds_to_target=(1 + number % 4) * DAY, terminal_rate=500,
            eligible=number % 5 != 4, storage_engine="TokuDB",
        )  # fmt: skip
    return contest


def admin_list(client) -> tuple[str, int]:
    with CaptureQueriesContext(connection) as queries:
        page = client.get(reverse("admin:submissions_submission_changelist"))
    assert page.status_code == 200
    return page.content.decode(), len(queries.captured_queries)


def shown_ranks(page: str) -> dict[int, str]:
    """{entry id: its rank cell} of the admin's list."""
    found = {}
    for row in re.findall(r"<tr>.*?</tr>", page, re.S):
        entry = re.search(r"/admin/submissions/submission/(\d+)/change/", row)
        rank = re.search(r'<td class="field-rank[^"]*">([^<]*)</td>', row)
        if entry and rank:
            found[int(entry.group(1))] = rank.group(1)
    return found


def test_the_admin_list_shows_every_rank_in_as_many_queries_for_3_entries_as_for_12(client):
    client.force_login(StaffFactory(is_superuser=True))
    contest = board(3)
    small_page, small = admin_list(client)
    board(9, contest)
    page, large = admin_list(client)

    expected = {
        entry.pk: str(entry_rank(entry=entry)) if entry_rank(entry=entry) else "-"
        for entry in Submission.objects.select_related("contest")
    }
    assert large == small
    assert shown_ranks(page) == expected
    assert len(shown_ranks(small_page)) == 3


def test_ranks_read_with_their_list_are_each_entrys_own_and_forgotten_on_save():
    contest = board(10)
    entries = ranks_known(Submission.objects.filter(contest=contest).select_related("contest"))

    with CaptureQueriesContext(connection) as queries:
        ranks = {entry.pk: entry.rank for entry in entries}

    assert len(queries.captured_queries) == 0
    assert ranks == {entry.pk: entry_rank(entry=entry) for entry in entries}
    best = min((e for e in entries if e.rank), key=lambda e: e.rank)
    best.seconds_to_target = 30 * DAY  # now the slowest: its rank is counted again
    best.save()
    assert best.rank == entry_rank(entry=best) > 1
