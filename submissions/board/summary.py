"""The home page's comparison: each public contest's leader and best verified entry, the latest
results and the best rate each engine reached over time. A few indexed reads (each contest's
board page of a few rows, the newest entries from the top of their index) built once per set of
board versions, and the chart from the bests kept per engine and month (board/engine_bests.py)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date

from django.db.models import Max
from django.utils import timezone

from submissions.board.query import LeaderboardQuery
from submissions.board.reads import leaderboard_page
from submissions.board.rows import BoardRow
from submissions.board.visibility import LIST_DEFERRED, published_q
from submissions.models import Contest, EngineMonthBest, Submission

# Enough rows to pass the reference rows a rank order places before the leader.
LEADER_WINDOW = 10
LATEST_RESULTS = 8


@dataclass(frozen=True)
class ContestSummary:
    contest: Contest
    leader: BoardRow | None
    best_verified: BoardRow | None
    ranked: int  # ranked entries on the board
    public: bool  # results published: the leader may be shown


@dataclass(frozen=True)
class EngineBest:
    """An engine's best average rate in the classic run's contests, month by month: each
    point the best so far."""

    engine: str
    months: list[date]
    rates: list[float]


def contest_summary(contest: Contest) -> ContestSummary:
    if not contest.results_are_public():
        return ContestSummary(contest, None, None, 0, public=False)
    board = LeaderboardQuery(page_size=LEADER_WINDOW)
    verified = LeaderboardQuery(page_size=LEADER_WINDOW, verified=True)
    leader, ranked = _first_ranked(contest, board)
    return ContestSummary(
        contest,
        leader=leader,
        best_verified=_first_ranked(contest, verified)[0],
        ranked=ranked,
        public=True,
    )


def contest_leader(contest: Contest) -> BoardRow | None:
    """Rank 1 of the board, whatever a page shows."""
    return _first_ranked(contest, LeaderboardQuery(page_size=LEADER_WINDOW))[0]


def _first_ranked(contest: Contest, query: LeaderboardQuery) -> tuple[BoardRow | None, int]:
    """The first ranked row of the board's first page in rank order, and how many are ranked;
    when more reference rows than the page holds rank ahead of every entry, the page again
    past them all."""
    board = leaderboard_page(contest=contest, query=query)
    found = next((row for row in board.rows if row.ranked), None)
    if found is None and board.ranked_count and query.page_size <= board.reference_count:
        wider = replace(query, page_size=board.reference_count + 1)
        found = next(
            (row for row in leaderboard_page(contest=contest, query=wider).rows if row.ranked),
            None,
        )
    return found, board.ranked_count


def latest_results(limit: int = LATEST_RESULTS) -> list[Submission]:
    """The newest entries of the contests whose results are public, every contest: read from
    the top of the entries' newest-first index (`published_results`, which orders by when each
    was published, sorts every published entry)."""
    return list(
        Submission.objects.filter(published_q())
        .select_related("contest")
        .defer(*LIST_DEFERRED)
        .order_by("-submitted_at", "-id")[:limit]
    )


def engine_bests(slugs: list[str], today: date) -> list[EngineBest]:
    """Per engine, the best average rate of an eligible entry by month in these contests, as a
    running best carried to `today`: a month without a better run keeps the last best. Read
    from the bests kept per contest, engine and month (board/engine_bests.py): a few rows per
    engine and month, whatever the registry holds."""
    monthly = (
        EngineMonthBest.objects.filter(
            contest__slug__in=slugs, contest__results_published_at__lte=timezone.now()
        )
        .values("storage_engine", "month")
        .annotate(top=Max("best"))
        .order_by("storage_engine", "month")
    )
    return running_bests(
        ((row["storage_engine"], row["month"], row["top"]) for row in monthly if row["top"]),
        today,
    )


def running_bests(monthly, today: date) -> list[EngineBest]:
    """(engine, month, best that month) in engine and month order, to each engine's best so
    far: the line only rises, a point is kept only where it did, and the last best holds to
    `today` (a line of one month would be a lone dot)."""
    by_engine: dict[str, EngineBest] = {}
    for engine, month, best in monthly:
        key = engine.strip()
        line = by_engine.setdefault(key.lower(), EngineBest(key, [], []))
        if line.rates and best <= line.rates[-1]:
            continue
        line.months.append(month.date() if hasattr(month, "date") else month)
        line.rates.append(float(best))
    for line in by_engine.values():
        if line.months[-1] < today:
            line.months.append(today)
            line.rates.append(line.rates[-1])
    return sorted(by_engine.values(), key=lambda line: -line.rates[-1])
