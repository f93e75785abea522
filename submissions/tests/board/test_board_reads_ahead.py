"""A board page built again (after its version moved on) reads what its last build read in one
round trip (caches/compiled.py `reading_ahead`'s `learn`), and never shows what such a read
found when the statement asked for has changed since."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from submissions.caches import compiled
from submissions.contests.ranks import contest_board_changed
from testing.factories import ReferenceResultFactory, SubmissionFactory
from testing.pages import board_rows

pytestmark = pytest.mark.django_db

DAY = 86_400.0


@pytest.fixture
def pipelines(monkeypatch) -> list[int]:
    """The size of each pipeline the board reads send (one round trip each)."""
    sent: list[int] = []
    run = compiled._run_at_once

    def counted(statements):
        rows = run(statements)
        if rows:
            sent.append(len(rows))
        return rows

    monkeypatch.setattr(compiled, "_run_at_once", counted)
    return sent


def page(client, contest):
    return client.get(reverse("contest_detail", args=[contest.slug]))


def ranked_board(contest):
    for days, name in enumerate(("Ada", "Alan", "Grace"), start=1):
        SubmissionFactory(
            contest=contest, entrant_name=name, seconds_to_target=days * DAY,
            elapsed_seconds=days * DAY,
        )  # fmt: skip
    return ReferenceResultFactory(contest=contest, label="Seed run", elapsed_seconds=2.5 * DAY)


def test_a_page_built_again_reads_the_board_with_the_contest_in_one_round_trip(
    client, contest, pipelines
):
    ranked_board(contest)
    first = page(client, contest)
    contest_board_changed(contest_id=contest.pk)
    pipelines.clear()

    with CaptureQueriesContext(connection) as queries:
        again = page(client, contest)

    # The version's look-up, then everything else at once: the contest, its rules, references
    # and engines, the reference row's placement and the board's first rows.
    assert pipelines == [len(queries.captured_queries) - 1]
    assert board_rows(again) == board_rows(first)


def test_a_reference_row_changed_between_two_builds_is_placed_by_its_new_figures(client, contest):
    reference = ranked_board(contest)
    labels = [row[1] for row in board_rows(page(client, contest))]
    assert labels == ["Ada", "Alan", "Seed run", "Grace"]

    # Its placement was read ahead by the statement of its old time: that one is not used.
    reference.elapsed_seconds = 0.5 * DAY
    reference.save()
    contest_board_changed(contest_id=contest.pk)

    labels = [row[1] for row in board_rows(page(client, contest))]
    assert labels == ["Seed run", "Ada", "Alan", "Grace"]
