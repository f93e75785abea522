"""The home page's comparison: each public contest's leader and best verified entry, the latest
results and the best rate each engine reached over time. A few indexed reads (each contest's
board page of a few rows, the newest entries from the top of their index) built once per set of
board versions, and the chart from the bests kept per engine and month (board/engine_bests.py)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date

from django.db.models import Max
from django.db.models.functions import Now

from submissions.board.query import LeaderboardQuery
from submissions.board.reads import first_ranked_row, leaderboard_page
from submissions.board.rows import BoardRow
from submissions.caches.compiled import compiled_values, values_of
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
        # The first verified entry in rank order, not counted: the verified board's count
        # reads every verified entry (up to board/query.py's DEEPEST_ROW), the registry.
        best_verified=first_ranked_row(contest=contest, query=verified),
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


# What the home page shows of a latest result (its template and `track_result`): the rest of
# the row (its log's text, its verdicts) is not read.
LATEST_FIELDS = (
    "id", "contest_id", "entrant_name", "publish", "demo", "storage_engine", "average_rate",
    "rows", "seconds_to_target", "estimated", "track_metric", "submitted_at",
)  # fmt: skip


def latest_results(contests: list[Contest], limit: int = LATEST_RESULTS) -> list[Submission]:
    """The newest entries of `contests` whose results are public, every contest: read from
    the top of the entries' newest-first index (`published_results`, which orders by when each
    was published, sorts every published entry), the columns shown alone, by a statement
    compiled once per process and set of contests. Each entry holds its contest (from
    `contests`); another column of it is read from the database when asked (deferred)."""
    public = {contest.pk: contest for contest in contests if contest.results_are_public()}
    if not public:
        return []
    ids = tuple(sorted(public))
    compiled = compiled_values(
        ("home-latest", ids, limit),
        lambda: (
            Submission.objects.filter(contest_id__in=ids)
            .order_by("-submitted_at", "-id")
            .values(*LATEST_FIELDS)[:limit]
        ),
    )
    # Submission.from_db takes the values in the model's field order.
    names = [f.attname for f in Submission._meta.concrete_fields if f.attname in LATEST_FIELDS]
    entries = []
    for row in values_of(compiled):
        entry = Submission.from_db(compiled.using, names, [row[name] for name in names])
        entry.contest = public[entry.contest_id]
        entries.append(entry)
    return entries


def engine_bests(slugs: list[str], today: date) -> list[EngineBest]:
    """Per engine, the best average rate of an eligible entry by month in these contests, as a
    running best carried to `today`: a month without a better run keeps the last best. Read
    from the bests kept per contest, engine and month (board/engine_bests.py): a few rows per
    engine and month, whatever the registry holds."""
    # Compiled once per process and set of contests: the time of publication is compared
    # with the database's clock (Now()), so the statement is the same at every build.
    compiled = compiled_values(
        ("home-engine-bests", tuple(slugs)),
        lambda: (
            EngineMonthBest.objects.filter(
                contest__slug__in=slugs, contest__results_published_at__lte=Now()
            )
            .values("storage_engine", "month")
            .annotate(top=Max("best"))
            .order_by("storage_engine", "month")
        ),
    )
    monthly = values_of(compiled)
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
