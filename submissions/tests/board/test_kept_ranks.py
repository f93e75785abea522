"""A page in another order than the ranking reads its rows' ranks from ranking keys each process
keeps (board/kept_ranks.py), checked against the board tally's count and ranking sum with the
page: the ranks are the window's, ties included, after every kind of change, whichever
connection made it, and the keys are read again only when the board's ranking changed."""

import random

import psycopg
import pytest
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext

from submissions.board import kept_ranks
from submissions.board.query import LeaderboardQuery
from submissions.board.reads import leaderboard_page
from submissions.contests.ranks import ranks_of
from submissions.measures.ranking import KeyedStanding, RankKey, keyed_ranks
from submissions.models import Submission, Workload
from testing.boards import class_board, classic_board, expected_ranks
from testing.factories import ContestFactory, SubmissionFactory

DAY = 86_400.0
BY_AVERAGE = LeaderboardQuery(sort="-average_rate", page_size=1_000)


def test_a_rank_by_bisection_is_the_ranking_s_rank_ties_and_missing_values_included():
    keys = (
        RankKey("estimated"),
        RankKey("seconds_to_target", required=True),
        RankKey("terminal_rate", descending=True),
    )
    generator = random.Random(31)
    standings = [
        KeyedStanding(
            number,
            (
                generator.random() < 0.1,
                float(generator.randint(1, 6)),
                generator.choice([None, 1.0, 2.0, 3.0]),
            ),
            generator.choice(["a", "b"]),
        )
        for number in range(300)
    ]
    expected = keyed_ranks(standings, keys)

    kept = kept_ranks.kept_ranking(
        len(standings),
        0,
        ((each.track_class, kept_ranks.order_key(keys, each.values), None) for each in standings),
    )

    assert {
        each.entry_id: kept.rank(each.track_class, kept_ranks.order_key(keys, each.values))
        for each in standings
    } == expected


def page_ranks(contest, query=None) -> dict[int, int]:
    if query is None:  # a thousand rows by average rate, or by the metric on a track with classes
        classes = contest.track.ranking.class_key
        query = BY_AVERAGE if not classes else LeaderboardQuery(sort="-metric", page_size=1_000)
    page = leaderboard_page(contest=contest, query=query)
    return {row.id: row.rank for row in page.rows if row.rank is not None}


def assert_window_ranks(contest) -> None:
    contest.refresh_from_db()
    assert page_ranks(contest) == ranks_of(contest=contest) == expected_ranks(contest)


@pytest.fixture
def reads(monkeypatch):
    """How many times the ranking keys were read from the entries."""
    read = kept_ranks._read
    counted = []

    def counting(contest):
        counted.append(contest.pk)
        return read(contest)

    monkeypatch.setattr(kept_ranks, "_read", counting)
    return counted


@pytest.mark.django_db
@pytest.mark.postgresql  # SQLite keeps no tally: its pages read the window
@pytest.mark.parametrize("make_board", [classic_board, class_board])
def test_the_kept_ranks_are_the_window_s_through_every_change(make_board, reads):
    contest = make_board()
    assert kept_ranks.keeps(contest.track)
    assert_window_ranks(contest)
    assert len(reads) == 1
    assert_window_ranks(contest)
    contest.board_version += 1  # a new board version alone: the kept keys still serve
    assert_window_ranks(contest)
    assert len(reads) == 1

    classic = not contest.track.ranking.class_key
    values = (
        {"seconds_to_target": 1.0, "elapsed_seconds": 1.0}
        if classic
        else {
            "track_metric": 0.5 if contest.track.ranking.order[0].descending is False else 99.0,
            "track_class": "r000000000200",
        }
    )
    top = SubmissionFactory(contest=contest, **values)  # a newcomer at the top
    assert_window_ranks(contest)
    assert len(reads) == 1  # caught up with the change alone, not every key read again
    bottom = SubmissionFactory(
        contest=contest,
        **(
            {"seconds_to_target": 99 * DAY, "elapsed_seconds": 99 * DAY, "terminal_rate": 1.0}
            if classic
            else {
                "track_metric": 99.0 if values["track_metric"] < 1 else 0.01,
                "track_class": "r000000000200",
            }
        ),
    )
    assert_window_ranks(contest)
    tied = Submission.objects.get(pk=top.pk)
    tied.pk, tied.log_sha256 = None, "e" * 64  # a tie with the top
    tied.save()
    assert_window_ranks(contest)
    Submission.objects.filter(pk=top.pk).update(eligible=False)  # withdrawn, ineligible
    assert_window_ranks(contest)
    Submission.objects.filter(pk=top.pk).update(eligible=True)  # back
    assert_window_ranks(contest)
    column = "terminal_rate" if classic else "track_metric"
    Submission.objects.filter(pk=bottom.pk).update(**{column: F(column) * 1000})  # an edit
    assert_window_ranks(contest)
    if classic:
        Submission.objects.filter(pk=bottom.pk).update(estimated=True)
        assert_window_ranks(contest)
    else:
        Submission.objects.filter(pk=bottom.pk).update(track_class="r000000016000")
        assert_window_ranks(contest)
    assert len(reads) == 1  # every change above caught up with alone
    Submission.objects.filter(pk=tied.pk).delete()
    assert_window_ranks(contest)
    assert len(reads) == 2  # a deleted entry leaves no change to read: all read again
    Submission.objects.filter(contest=contest).update(average_rate=F("average_rate"))
    before = len(reads)
    assert_window_ranks(contest)  # a change of no ranking value reads nothing again
    assert len(reads) == before


@pytest.mark.django_db
@pytest.mark.postgresql
def test_a_filtered_page_in_another_order_shows_the_overall_kept_ranks():
    contest = classic_board()
    expected = expected_ranks(contest)

    ranks = page_ranks(contest, LeaderboardQuery(sort="-terminal_rate", engine="TokuDB"))

    assert ranks and all(expected[pk] == rank for pk, rank in ranks.items())


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgresql
def test_a_change_committed_by_another_connection_is_never_served_stale(reads):
    """Another process's change reaches this one by the tally alone (no notification, no
    version moved here): the next page's check finds it and the keys are read again."""
    contest = classic_board()
    assert_window_ranks(contest)
    read_before = len(reads)
    params = {**connection.get_connection_params(), "autocommit": True}
    newcomer = SubmissionFactory(contest=contest, seconds_to_target=50 * DAY)
    elsewhere = classic_board()
    assert_window_ranks(contest)
    assert_window_ranks(elsewhere)
    with psycopg.connect(**params) as other:
        # Moved to the top by another connection, then a tie with the first of a class.
        other.execute(
            "UPDATE submissions_submission SET seconds_to_target = 1, estimated = false "
            "WHERE id = %s",
            (newcomer.pk,),
        )
        assert_window_ranks(contest)
        other.execute(
            "UPDATE submissions_submission SET eligible = false WHERE id = %s", (newcomer.pk,)
        )
        assert_window_ranks(contest)
        other.execute(
            "UPDATE submissions_submission SET eligible = true, contest_id = %s WHERE id = %s",
            (elsewhere.pk, newcomer.pk),
        )  # moved to another contest
        assert_window_ranks(contest)
        assert_window_ranks(elsewhere)
    assert len(reads) > read_before


@pytest.mark.django_db
def test_sqlite_and_other_rankings_fall_back_to_the_window():
    contest = ContestFactory(workload=Workload.CRASH_RECOVERY)
    SubmissionFactory(contest=contest, track_metric=2.0, track_class="r000000000200")
    SubmissionFactory(contest=contest, track_metric=2.0, track_class="r000000000200")

    assert page_ranks(contest) == ranks_of(contest=contest) == expected_ranks(contest)
    assert kept_ranks.keeps(contest.track) == (connection.vendor == "postgresql")


def test_a_key_not_kept_is_placed_after_every_key_before_it():
    keys = (RankKey("seconds_to_target", required=True), RankKey("terminal_rate", descending=True))
    kept = kept_ranks.kept_ranking(
        4,
        0,
        (
            ("", kept_ranks.order_key(keys, values), None)
            for values in [(1.0, 5.0), (2.0, None), (2.0, 7.0), (2.0, 7.0)]
        ),
    )

    def rank(values):
        return kept.rank("", kept_ranks.order_key(keys, values))

    assert [rank(values) for values in [(2.0, 7.0), (2.0, None), (0.5, None), (2.0, 8.0)]] == [
        2,
        4,
        1,
        2,
    ]
    assert rank((3.0, 1.0)) == 5 and rank((2.0, 6.0)) == 4 and kept.rank("other", ()) == 1


def test_changes_caught_up_with_give_the_ranks_of_keys_read_afresh_or_nothing():
    keys = (RankKey("seconds_to_target", required=True), RankKey("terminal_rate", descending=True))
    generator = random.Random(33)

    def values():
        return (float(generator.randint(1, 9)), generator.choice([None, 1.0, 2.0]))

    board = {number: values() for number in range(200)}

    def read(entries: dict) -> kept_ranks.KeptRanking:
        held = {
            number: ("", kept_ranks.order_key(keys, each), hash(each), None)
            for number, each in entries.items()
        }
        return kept_ranks.kept_ranking(
            len(held),
            sum(each[2] for each in held.values()),
            (("", key, engine) for _, key, _, engine in held.values()),
            held,
        )

    kept = read(board)
    after = dict(board)
    changes = []
    for seq, number in enumerate(generator.sample(range(260), 80), start=1):
        ranked = generator.random() < 0.8
        now = values()
        if ranked:
            after[number] = now
        else:
            after.pop(number, None)
        changes.append(
            kept_ranks.RankingChange(
                number, ranked, "", kept_ranks.order_key(keys, now), hash(now), seq
            )
        )
    fresh = read(after)

    caught = kept_ranks.caught_up(kept, changes, fresh.entries, fresh.ranking_sum)

    assert caught is not None and caught.seq == 80
    assert {
        number: caught.rank("", kept_ranks.order_key(keys, each)) for number, each in after.items()
    } == {
        number: fresh.rank("", kept_ranks.order_key(keys, each)) for number, each in after.items()
    }
    assert kept.rank("", kept_ranks.order_key(keys, board[0])) == read(board).rank(
        "", kept_ranks.order_key(keys, board[0])
    )  # the kept keys, shared by other threads, are left as they were
    # A change missed (a deletion, a commit behind one read): the tally disagrees, nothing.
    assert kept_ranks.caught_up(kept, changes[1:], fresh.entries, fresh.ranking_sum) is None
    # The same changes caught up with four at a time, past the layers' merge: the same ranks.
    state, now = dict(board), kept
    for start in range(0, len(changes), 4):
        for change in changes[start : start + 4]:
            state.pop(change.entry_id, None)
            if change.ranked:
                state[change.entry_id] = after[change.entry_id]
        expected = read(state)
        now = kept_ranks.caught_up(
            now, changes[start : start + 4], expected.entries, expected.ranking_sum
        )
        assert now is not None
    assert state == after
    assert {
        number: now.rank("", kept_ranks.order_key(keys, each)) for number, each in after.items()
    } == {
        number: fresh.rank("", kept_ranks.order_key(keys, each)) for number, each in after.items()
    }


@pytest.mark.django_db
@pytest.mark.postgresql
def test_a_change_numbered_before_the_last_one_read_is_not_missed(reads):
    """Changes are numbered when made and read when committed: one made before the last read
    but committed after it is not among the changes after that number. The tally still counts
    it, so the keys are read again, never served without it."""
    contest = classic_board()
    assert_window_ranks(contest)
    last = Submission.objects.filter(contest=contest).order_by("-id").first()
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE submissions_submission SET seconds_to_target = 1, estimated = false "
            "WHERE id = %s",
            [last.pk],
        )
        cursor.execute("UPDATE submissions_submission SET ranking_seq = 1 WHERE id = %s", [last.pk])
    before = len(reads)

    assert_window_ranks(contest)
    assert len(reads) == before + 1


def test_a_placement_by_bisection_is_the_count_among_the_engine_s_entries():
    """Beside its rank, the kept keys give an entry's placement among the other ranked entries
    of its class and engine: how many it beats (not level with it) of how many, itself left
    out wherever it is kept, as the page's count gives it; and still after changes caught up
    with, engines among them."""
    keys = (RankKey("seconds_to_target", required=True), RankKey("terminal_rate", descending=True))
    generator = random.Random(44)

    def entry():
        values = (float(generator.randint(1, 5)), generator.choice([None, 1.0, 2.0]))
        return generator.choice(["a", "b"]), values, generator.choice(["INNODB", "TOKUDB", ""])

    def read(entries: dict) -> kept_ranks.KeptRanking:
        held = {
            number: (track_class, kept_ranks.order_key(keys, values), hash(values), engine)
            for number, (track_class, values, engine) in entries.items()
        }
        return kept_ranks.kept_ranking(
            len(held),
            sum(each[2] for each in held.values()),
            ((track_class, key, engine) for track_class, key, _, engine in held.values()),
            held,
        )

    def counted(entries: dict, number: int, track_class: str, values: tuple, engine: str):
        key = kept_ranks.order_key(keys, values)
        others = [
            kept_ranks.order_key(keys, their)
            for other, (their_class, their, their_engine) in entries.items()
            if other != number and (their_class, their_engine) == (track_class, engine)
        ]
        return sum(other > key for other in others), len(others)

    def placements(kept, entries: dict, asked: dict) -> dict:
        return {
            number: (
                kept.placement(track_class, engine, kept_ranks.order_key(keys, values), number),
                counted(entries, number, track_class, values, engine),
            )
            for number, (track_class, values, engine) in asked.items()
        }

    board = {number: entry() for number in range(200)}
    # Each entry as kept, and as a page may hold it: changed since (or never kept, 900+).
    asked = {**board, **{number: entry() for number in [*range(0, 200, 7), *range(900, 905)]}}
    found = placements(read(board), board, asked)
    assert all(kept == count for kept, count in found.values())
    assert any(count[0] and count[0] < count[1] for _, count in found.values())

    after, changes = dict(board), []
    for seq, number in enumerate(generator.sample(range(260), 90), start=1):
        ranked, now = generator.random() < 0.8, entry()
        if number in after and generator.random() < 0.3:  # its engine alone changed
            now = (*after[number][:2], generator.choice(["INNODB", "TOKUDB", "MYROCKS"]))
        if ranked:
            after[number] = now
        else:
            after.pop(number, None)
        track_class, values, engine = now
        changes.append(
            kept_ranks.RankingChange(
                number, ranked, track_class, kept_ranks.order_key(keys, values), hash(values),
                seq, engine,
            )
        )  # fmt: skip
    fresh = read(after)

    caught = kept_ranks.caught_up(read(board), changes, fresh.entries, fresh.ranking_sum)

    assert caught is not None
    found = placements(caught, after, {**after, **asked})
    assert all(kept == count for kept, count in found.values())


def assert_placements_counted(contest) -> int:
    """Every ranked entry's placement among its engine's from the kept keys is the count's;
    returns how many entries were compared."""
    from submissions.contests.ranks import (
        Placement,
        _counted_placement,
        entry_placement,
        ranks_known,
    )

    contest.refresh_from_db()
    keys = contest.track.ranking.order
    compared = 0
    for entry in Submission.objects.filter(contest=contest, eligible=True).order_by("pk"):
        entry.contest = contest
        if not entry.engine or any(k.required and getattr(entry, k.column) is None for k in keys):
            continue
        kept = kept_ranks.placement_by_keys(contest, entry)
        assert kept is not None, entry.pk  # the keys kept and current: not the count's fallback
        assert kept == _counted_placement(entry), entry.pk
        # The page's answer: the same, None when no other entry runs that engine; after its
        # rank is read (as the entry page reads it), from the same keys without a statement.
        shown = Placement(*kept) if kept[1] else None
        assert entry_placement(entry=entry) == shown
        ranks_known([entry])
        with CaptureQueriesContext(connection) as queries:
            assert entry_placement(entry=entry) == shown
        assert len(queries) == 0
        compared += 1
    return compared


@pytest.mark.django_db
@pytest.mark.postgresql  # SQLite keeps no tally: its pages count
@pytest.mark.parametrize("make_board", [classic_board, class_board])
def test_the_kept_placement_is_the_count_through_random_changes(make_board, reads):
    """Random inserts, edits of ranking values, eligibility changes, deletions and engine
    changes (a case apart, a name Python and PostgreSQL upper-case differently, a bulk UPDATE),
    each batch followed by every ranked entry's placement from the kept keys against the
    count: always the same, and mostly caught up with rather than read again."""
    contest = make_board()
    classic = not contest.track.ranking.class_key
    generator = random.Random(4404)
    engines = ["InnoDB", "innodb", "TokuDB", "MyRocks", "straße", "STRASSE", "ärger", "ÄRGER"]

    def ranking_values() -> dict:
        if classic:
            return {
                "seconds_to_target": generator.choice([DAY, 2 * DAY, 3 * DAY, None]),
                "terminal_rate": generator.choice([None, 100.0, 500.0, 900.0]),
                "estimated": generator.random() < 0.2,
            }
        return {
            "track_metric": generator.choice([None, 1.0, 2.0, 5.0]),
            "track_class": generator.choice(["r000000000200", "r000000002000", "r000000016000"]),
        }

    Submission.objects.filter(contest=contest).update(engine="InnoDB")
    assert assert_placements_counted(contest) > 3
    for _ in range(12):
        for _ in range(4):
            ids = list(Submission.objects.filter(contest=contest).values_list("pk", flat=True))
            picked = generator.choice(ids)
            change = generator.random()
            if change < 0.25:
                SubmissionFactory(contest=contest, engine=generator.choice(engines),
                                  **ranking_values())  # fmt: skip
            elif change < 0.6:
                Submission.objects.filter(pk=picked).update(engine=generator.choice(engines))
            elif change < 0.8:
                Submission.objects.filter(pk=picked).update(**ranking_values())
            elif change < 0.9:
                Submission.objects.filter(pk=picked).update(eligible=generator.random() < 0.7)
            elif len(ids) > 5:
                Submission.objects.filter(pk=picked).delete()
        assert_placements_counted(contest)
    # A bulk change of every entry's engine (one statement, many rows).
    Submission.objects.filter(contest=contest, pk__in=ids[::2]).update(engine="TokuDB")
    assert assert_placements_counted(contest) > 3
    assert len(reads) < 12  # caught up with the changes, read again only after a deletion
