"""The entry page built cold reads its entry, series preview, rules, stream and settings' counts
by statements compiled once per process for any entry (issue 44: caches/compiled.py `for_id`):
the pages of two entries built one after the other in one process each show their own entry,
and the same page as the entry's owner, who is served by the plain reads."""

import pytest
from django.test import Client

from submissions.contests.ranks import contest_board_changed
from submissions.models import ServerSetting, SettingSource
from testing.factories import ContestFactory, SampleSeriesFactory, SubmissionFactory

pytestmark = pytest.mark.django_db


def declared(entry, key: str, value: str, source=SettingSource.DECLARED) -> None:
    ServerSetting.objects.create(submission=entry, key=key, value=value, source=source, line=1)


def test_two_entries_built_cold_in_one_process_each_show_their_own():
    contest = ContestFactory()
    first = SubmissionFactory(contest=contest, entrant_name="First Entrant")
    second = SubmissionFactory(contest=contest, entrant_name="Second Entrant", eligible=False,
                               ineligible_reason="Too few rows for this contest.")  # fmt: skip
    SampleSeriesFactory(submission=first)
    declared(first, "innodb_buffer_pool_size", "12G")
    declared(first, "version", "5.1.30", SettingSource.BENCHMARK_HEADER)
    declared(second, "tokudb_cache_size", "3G")

    pages = {}
    for entry in (first, second, first):
        contest_board_changed(contest_id=contest.pk)  # built cold each time
        pages.setdefault(entry.pk, []).append(Client().get(f"/entries/{entry.pk}/"))
    first_page, second_page = (pages[e.pk][0].content.decode() for e in (first, second))

    assert "First Entrant" in first_page and "Second Entrant" not in first_page
    assert "innodb_buffer_pool_size" in first_page and "tokudb_cache_size" not in first_page
    assert "lists 1 server variables" in first_page  # the header's, counted apart
    assert 'id="rate-curve-data"' in first_page and "100 samples" in first_page
    assert "This log has no rate series to plot." in second_page
    assert "Second Entrant" in second_page and "tokudb_cache_size" in second_page
    assert "Too few rows for this contest." in second_page
    assert "innodb_buffer_pool_size" not in second_page
    # The first entry's page built again after the second's: the same page.
    assert pages[first.pk][0].content == pages[first.pk][1].content


def test_the_cold_page_shows_what_the_owner_sees_of_the_entry():
    """The owner's page reads the entry by the plain ORM reads (select_related): the
    visitor's, built from the compiled ones, shows the same entry, settings and verdicts."""
    entry = SubmissionFactory(entrant_name="Owned Entrant")
    SampleSeriesFactory(submission=entry)
    declared(entry, "innodb_flush_log_at_trx_commit", "2")
    visitor = Client().get(f"/entries/{entry.pk}/").content.decode()
    owner = Client()
    owner.force_login(entry.owner)
    mine = owner.get(f"/entries/{entry.pk}/").content.decode()
    for shown in ("Owned Entrant", "innodb_flush_log_at_trx_commit", 'id="rate-curve-data"'):
        assert (shown in visitor) == (shown in mine), shown


def test_a_missing_entry_is_a_404():
    assert Client().get("/entries/987654/").status_code == 404
