"""A web process keeps the boards' versions it read while PostgreSQL tells it of every change
(submissions/board/versions.py, migration 0018): a kept board is then served without a database
round trip, and never after its version moved on. Changes here are committed by another
connection, as another process's would be."""

from __future__ import annotations

import time

import psycopg
import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from submissions.board import versions
from submissions.board.cache import board_stamp
from submissions.contests.ranks import contest_board_changed
from testing.factories import ContestFactory

pytestmark = [pytest.mark.postgresql, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def other():
    """Another process's connection to the same database, committing each statement."""
    params = {**connection.get_connection_params(), "autocommit": True}
    with psycopg.connect(**params) as other:
        yield other


def asked(slug: str):
    """The stamp and how many queries answering it took."""
    with CaptureQueriesContext(connection) as queries:
        stamp = board_stamp(slug)
    return stamp, len(queries.captured_queries)


def seen_within(slug: str, expected, seconds: float = 2.0) -> float:
    """How long until board_stamp answers `expected` (its notification on its way)."""
    started = time.monotonic()
    while board_stamp(slug) != expected:
        assert time.monotonic() - started < seconds, f"still {board_stamp(slug)}"
        time.sleep(0.005)
    return time.monotonic() - started


def test_a_kept_version_is_answered_without_asking_the_database():
    contest = ContestFactory(slug="kept")
    first, queries = asked("kept")
    assert (first.contest_id, first.version) == (contest.pk, contest.board_version)
    assert queries == 1
    assert asked("kept") == (first, 0)


def test_another_process_moving_a_version_on_is_seen_at_once(other):
    ContestFactory(slug="moved")
    before, _ = asked("moved")
    asked("moved")  # kept

    other.execute("UPDATE submissions_contest SET board_version = board_version + 1 "
                  "WHERE slug = 'moved'")  # fmt: skip

    moved = type(before)(before.contest_id, before.version + 1)
    assert seen_within("moved", moved) < 0.5
    assert asked("moved") == (moved, 0)  # and kept again


def test_a_renamed_deleted_or_truncated_contest_is_not_answered_from_what_was_kept(other):
    contest = ContestFactory(slug="old-name")
    asked("old-name")
    other.execute("UPDATE submissions_contest SET slug = 'new-name' WHERE slug = 'old-name'")
    seen_within("old-name", None)
    assert board_stamp("new-name").contest_id == contest.pk

    other.execute("DELETE FROM submissions_ruleversion WHERE contest_id = %s", [contest.pk])
    other.execute("DELETE FROM submissions_contest WHERE slug = 'new-name'")
    seen_within("new-name", None)

    ContestFactory(slug="again")
    asked("again")
    other.execute("TRUNCATE submissions_contest CASCADE")
    seen_within("again", None)


def test_this_process_sees_its_own_change_before_any_notification():
    contest = ContestFactory(slug="own")
    before, _ = asked("own")
    with transaction.atomic():
        contest_board_changed(contest_id=contest.pk)
        # Read in the writer's own transaction: the new version, not kept (it may roll back).
        inside, queries = asked("own")
        assert inside.version == before.version + 1 and queries == 1
        assert asked("own")[1] == 1
    after, queries = asked("own")
    assert after == inside and queries == 1


def test_a_listening_connection_that_dies_falls_back_to_asking(other):
    ContestFactory(slug="fallback")
    before, _ = asked("fallback")
    assert asked("fallback")[1] == 0
    listener_pid = versions.kept_versions._listener.info.backend_pid
    other.execute("SELECT pg_terminate_backend(%s)", [listener_pid])
    # The change's notification is lost with the connection; the next answer must not be
    # what was kept.
    other.execute("UPDATE submissions_contest SET board_version = board_version + 1 "
                  "WHERE slug = 'fallback'")  # fmt: skip
    deadline = time.monotonic() + 2
    while versions.kept_versions._listener is not None and time.monotonic() < deadline:
        after, queries = asked("fallback")
        assert after.version in (before.version, before.version + 1)
    assert versions.kept_versions._listener is None
    after, queries = asked("fallback")
    assert after.version == before.version + 1 and queries == 1
    assert asked("fallback")[1] == 1  # asked every time until it listens again
