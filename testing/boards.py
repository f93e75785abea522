"""Boards the ranking tests share: a classic board and one with classes, the ranks expected of
them, and every row of a board read through its pages."""

from __future__ import annotations

from submissions.measures.ranking import KeyedStanding, keyed_ranks
from submissions.models import Submission, Workload
from testing.factories import ContestFactory, ReferenceResultFactory, SubmissionFactory

DAY = 86_400.0


def expected_ranks(contest) -> dict[int, int]:
    ranking = contest.track.ranking
    keys = ranking.order
    standings = [
        KeyedStanding(
            entry.pk,
            tuple(getattr(entry, key.column) for key in keys),
            entry.track_class if ranking.class_key else "",
        )
        for entry in Submission.objects.filter(contest=contest, eligible=True)
    ]
    return keyed_ranks(standings, keys)


def every_row(client, contest, query: str, page_size: int) -> list[dict]:
    rows, page = [], 1
    while True:
        url = f"/api/contests/{contest.slug}/leaderboard/?page_size={page_size}&page={page}{query}"
        body = client.get(url).json()
        rows += body["results"]
        if not body.get("next"):
            return rows
        page += 1


def classic_board():
    contest = ContestFactory()
    # Ties on time and rate (they share a rank), a missing rate (loses its tie), estimates
    # (after every measured time), entries that are not ranked, in scrambled order.
    for days, rate, estimated, eligible, engine in [
        (3, 900, False, True, "InnoDB"), (1, 500, False, True, "TokuDB"),
        (3, 900, False, True, "TokuDB"), (2, None, False, True, "InnoDB"),
        (2, 700, False, True, "InnoDB"), (0.5, 800, True, True, "InnoDB"),
        (3, 900, False, True, "InnoDB"), (1, 500, False, False, "InnoDB"),
        (4, 100, False, True, "TokuDB"), (0.2, 100, True, True, "TokuDB"),
        (2, 700, False, True, "TokuDB"), (5, 50, False, True, "InnoDB"),
        (3, 900, False, True, "InnoDB"), (9, 10, False, False, "TokuDB"),
    ]:  # fmt: skip
        SubmissionFactory(
            contest=contest, seconds_to_target=days * DAY, elapsed_seconds=days * DAY,
            terminal_rate=rate, estimated=estimated, eligible=eligible, storage_engine=engine,
            engine=engine,
        )  # fmt: skip
    SubmissionFactory(contest=contest, seconds_to_target=None, elapsed_seconds=DAY)
    ReferenceResultFactory.create_batch(2, contest=contest)
    return contest


def class_board():
    contest = ContestFactory(workload=Workload.CRASH_RECOVERY)
    for metric, track_class in [
        (13.0, "r000000002000"), (2.0, "r000000000200"), (2.0, "r000000000200"),
        (5.0, "r000000000200"), (7.0, "r000000002000"), (1.0, "r000000016000"),
        (13.0, "r000000002000"), (9.0, "r000000000200"), (3.0, "r000000016000"),
        (None, "r000000000200"),
    ]:  # fmt: skip
        SubmissionFactory(contest=contest, track_metric=metric, track_class=track_class)
    return contest
