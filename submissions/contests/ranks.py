"""A contest's ranks, derived where they are read and never stored, and the board version every
change moves on.

A rank is the track's ranking (measures.ranking, `keyed_ranks`) said in SQL: a board page in rank
order works its ranks out from its own rows and at most a count per class (`ranks_in_order`),
any other page (the entry page's rank among them, `ranks_known`) looks them up in ranking keys
kept per process (board/kept_ranks.py) or else, like a download, reads them from a window over
the ranked entries (`ranks_of`); where the keys are not kept, one entry's rank is one count of
the ranked entries that beat it (`entry_rank`, O(its rank)). An entry's placement among its
engine's ranked entries (`entry_placement`) is a bisection in the same keys, grouped by engine,
or else a count of that engine's entries. A new, changed or deleted entry therefore writes its
own row and the contest's board version, never the ranks of everyone below it, and an upload
never waits on another entry's ranking."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection
from django.db.models import Count, F, Q, Window
from django.db.models.functions import Rank

from submissions.board.versions import forget_kept_versions
from submissions.caches.compiled import compiled_instances, instances_of, sql_of
from submissions.contests.rank_query import beats_q, key_order, ranked_q
from submissions.models import KNOWN_KEYS, KNOWN_RANK, Contest, Submission


def ranks_of(*, contest: Contest, ids: list[int] | None = None) -> dict[int, int]:
    """{entry id: rank} of the contest's ranked entries (of `ids` only, when given): a window
    over every ranked entry of the contest, read in the order of its index."""
    if ids is None:
        return dict(_ranked_window(contest).values_list("pk", "standing"))
    if not ids:
        return {}
    # Compiled once per process: the window's SQL depends on the contest and its track alone.
    inner, params = sql_of(
        ("window", contest.pk, contest.workload),
        lambda: _ranked_window(contest).values("pk", "standing"),
    )
    # The ids are chosen above the window: beneath it they would rank among themselves. On
    # PostgreSQL they are one array: a thousand placeholders cost the driver milliseconds to
    # find in the statement. The array is of the ids' own type: the driver sends the smallest
    # type that holds them, and an id compared across types is not looked up in a hash but
    # against every element (a thousand ids over 90,000 ranked entries: 250 ms).
    if connection.vendor == "postgresql":
        pk_type = Submission._meta.pk.db_type(connection)
        chosen, chosen_params = f"= ANY(CAST(%s AS {pk_type}[]))", (list(ids),)
    else:
        chosen, chosen_params = f"IN ({', '.join(['%s'] * len(ids))})", tuple(ids)
    with connection.cursor() as cursor:
        cursor.execute(
            # The inner query is the ORM's; every value is a parameter.
            f"SELECT * FROM ({inner}) AS ranked WHERE ranked.pk {chosen}",  # noqa: S608  # nosec B608
            (*params, *chosen_params),
        )
        return dict(cursor.fetchall())


def ranking_signature(contest: Contest) -> tuple[str, int] | None:
    """What the contest's ranks follow from: (its track with its ranked entries' count and sum
    of ranking hashes as the board tally holds them, the contest's last ranking change number),
    both moved by the database with every change of an entry (board/kept_ranks.py, migration
    0026). The same first part, and no entry ranked now whose ranking changed after that
    number: the same ranks (an entry deleted or no longer ranked moves the count and sum, one
    added or re-ranked takes a new number). A read of a few tally rows and an index's end,
    whatever the board's size. None where no tally covers the ranking (SQLite)."""
    from submissions.board.kept_ranks import keeps, ranking_tally

    if not keeps(contest.track):
        return None
    entries, ranking_sum, seq = ranking_tally(contest)
    return f"{contest.workload}:{entries}:{ranking_sum}", seq


def _ranked_window(contest: Contest):
    track = contest.track
    ranking = track.ranking
    window = Window(
        Rank(),
        partition_by=[F("track_class")] if ranking.class_key else None,
        order_by=[key_order(key) for key in ranking.order],
    )
    return (
        Submission.objects.filter(ranked_q(track), contest_id=contest.pk)
        .annotate(standing=window)
        .order_by()
    )


def ranks_in_order(*, contest: Contest, rows: list[dict], first: int) -> dict[int, int]:
    """{entry id: rank} of `rows`: ranked entries of the whole (unfiltered) board in rank order,
    from position `first` (0-based) of its ranked entries. A rank follows from the row before
    it (a tie shares it, else the position decides) and a class starts at rank 1, so only a
    page's first row is counted against the entries before it, and not on the first page: a
    deep page pays one count, as its OFFSET does."""
    track = contest.track
    ranking = track.ranking
    keys = ranking.order
    ranks: dict[int, int] = {}
    start, start_position, previous = 0, 0, None
    for index, row in enumerate(rows):
        values = tuple(row[key.column] for key in keys)
        group = row["track_class"] if ranking.class_key else ""
        if previous is None or group != previous[0]:
            start = index
            if first + index == 0 or previous is not None:
                # The board's first entry, or the first of its class (the row above is of
                # another class, and classes come one after another).
                ranks[row["id"]], start_position = 1, 0
            else:
                ranks[row["id"]], start_position = _standing(contest, row, values)
        elif values == previous[1]:
            ranks[row["id"]] = ranks[rows[index - 1]["id"]]
        else:
            ranks[row["id"]] = 1 + start_position + (index - start)
        previous = (group, values)
    return ranks


def _standing(contest: Contest, row: dict, values: tuple) -> tuple[int, int]:
    """(rank, position) of one ranked entry: 1 + the entries that beat it, and how many come
    before it in rank order (those, and the ones tied with it of a smaller id)."""
    track = contest.track
    keys = track.ranking.order
    rivals = Submission.objects.filter(ranked_q(track), contest_id=contest.pk)
    if track.ranking.class_key:
        rivals = rivals.filter(track_class=row["track_class"])
    beats = beats_q(keys, values)
    tied = Q()
    for key, value in zip(keys, values, strict=True):
        tied &= Q(**{f"{key.column}__isnull": True} if value is None else {key.column: value})
    counts = rivals.filter(beats | (tied & Q(pk__lt=row["id"]))).aggregate(
        before=Count("pk"), better=Count("pk", filter=beats)
    )
    return 1 + counts["better"], counts["before"]


def entry_rank(*, entry: Submission) -> int | None:
    """One entry's rank: 1 + the ranked entries of its contest (and class) that beat it.
    One count of those, from the rank order's index (O(its rank)), and nothing written
    (`Submission.counted_rank`): what `ranks_known` falls back to where the keys are not kept."""
    return entry.counted_rank()


@dataclass(frozen=True)
class Placement:
    """Where an entry stands among the other ranked entries of its engine in its contest (and
    class): it beats `beaten` of `others`."""

    beaten: int
    others: int

    @property
    def percent(self) -> int:
        return round(100 * self.beaten / self.others) if self.others else 0


def entry_placement(*, entry: Submission) -> Placement | None:
    """How many ranked entries of the same (normalised) engine this one beats. Where this
    process keeps the contest's ranking keys (board/kept_ranks.py: PostgreSQL, a ranking the
    tally's hash covers) two bisections in its engine's keys: in those its rank was read from
    (`ranks_known`, no statement more), else in keys checked against the tally by one read of
    a few rows; O(log of them), the same answer as the count. Elsewhere, or when the keys are
    not current, one query of two counts (`_counted_placement`), which reads the engine's
    ranked entries in the contest (O(them)). None when it is not ranked or runs alone."""
    from submissions.board import kept_ranks  # the kept keys read this module's helpers

    keys = entry.contest.track.ranking.order
    unranked = not entry.eligible or any(
        key.required and getattr(entry, key.column) is None for key in keys
    )
    if unranked or not entry.engine:
        return None
    checked = entry.__dict__.get(KNOWN_KEYS)
    found = kept_ranks.placement_in(entry.contest, entry, checked) if checked else None
    if found is None:
        found = kept_ranks.placement_by_keys(entry.contest, entry)
    beaten, others = found if found is not None else _counted_placement(entry)
    if not others:
        return None
    return Placement(beaten=beaten, others=others)


def _counted_placement(entry: Submission) -> tuple[int, int]:
    """(beaten, others) of a ranked entry among its engine's, counted: one query of two counts
    over the engine's ranked entries in the contest (and class), from their index (0036)."""
    track = entry.contest.track
    ranking = track.ranking
    keys = ranking.order
    rivals = Submission.objects.filter(
        ranked_q(track), contest_id=entry.contest_id, engine__iexact=entry.engine
    ).exclude(pk=entry.pk)
    if ranking.class_key:
        rivals = rivals.filter(track_class=entry.track_class)
    values = tuple(getattr(entry, key.column) for key in keys)
    level = Q(**{key.column: value for key, value in zip(keys, values, strict=True)})
    # Both counts in one scan of the engine's ranked entries (two counts scanned them twice).
    counted = rivals.aggregate(
        others=Count("pk"), not_beaten=Count("pk", filter=beats_q(keys, values) | level)
    )
    return counted["others"] - counted["not_beaten"], counted["others"]


def contest_leader(*, contest: Contest) -> Submission | None:
    """An entry ranked 1 (the first class's, on a track with classes), or None."""
    ranking = contest.track.ranking
    order = [*(["track_class"] if ranking.class_key else []), *map(key_order, ranking.order)]
    # With its stream (the live wing's reverse one-to-one), which its trust level reads (the
    # contest's badge): one query, not two.
    return (
        Submission.objects.filter(ranked_q(contest.track), contest=contest)
        .select_related("contest", "live_run")
        .order_by(*order, "id")
        .first()
    )


def contest_leader_kept(*, contest: Contest) -> Submission | None:
    """`contest_leader` by a statement compiled once per process and contest (no stream read
    with it): a page's build that read it once reads it again with its contest, in the same
    round trip (caches/compiled.py `reading_ahead`'s `learn`)."""
    ranking = contest.track.ranking
    order = [*(["track_class"] if ranking.class_key else []), *map(key_order, ranking.order)]
    compiled = compiled_instances(
        ("leader", contest.pk, contest.workload),
        lambda: Submission.objects.filter(ranked_q(contest.track), contest_id=contest.pk).order_by(
            *order, "id"
        )[:1],
    )
    found = instances_of(compiled)
    if not found:
        return None
    found[0].contest = contest
    return found[0]


def contest_board_changed(*, contest_id: int) -> None:
    """Move the contest's board version on, inside the caller's transaction: pages cached
    under the old version are never served again."""
    Contest.objects.filter(pk=contest_id).update(board_version=F("board_version") + 1)
    forget_kept_versions()


def ranks_known(entries) -> list[Submission]:
    """Read the ranks of a list of entries at once and keep each on its instance, so that
    reading `entry.rank` in the list costs no query. Where this process keeps the contest's
    ranking keys (board/kept_ranks.py: PostgreSQL, a ranking the tally's hash covers) a rank is
    a look-up in them, checked against the tally by one read of a few rows: O(the list), never
    the board (after the keys' first read in the process). Elsewhere one window per contest
    (`ranks_of`), or one count for a contest's only entry in the list. Returns the entries as
    a list."""
    entries = list(entries)
    by_contest: dict[int, list[Submission]] = {}
    for entry in entries:
        by_contest.setdefault(entry.contest_id, []).append(entry)
    for contest_id, group in by_contest.items():
        contest = group[0].contest if "contest" in group[0]._state.fields_cache else None
        contest = contest or Contest.objects.get(pk=contest_id)
        ranks = _kept_ranks(contest, group)
        if ranks is None and len(group) == 1:  # one count reads no more than the window would
            ranks = {group[0].pk: entry_rank(entry=group[0])}
        if ranks is None:
            ranks = ranks_of(contest=contest, ids=[entry.pk for entry in group])
        for entry in group:
            entry.__dict__[KNOWN_RANK] = ranks.get(entry.pk)
    return entries


def rank_checks(entries: list[Submission]) -> list:
    """The statements `ranks_known(entries)` will read first where this process keeps their
    contests' ranking keys (each contest's tally check, board/kept_ranks.py), for a page to
    send with its other reads (caches/compiled.py `values_at_once`'s `ahead`) within a
    `reading_ahead` block; none elsewhere."""
    from submissions.board import kept_ranks  # the kept keys read this module's helpers

    contests = {}
    for entry in entries:
        if "contest" in entry._state.fields_cache:
            contests.setdefault(entry.contest_id, entry.contest)
    return [
        kept_ranks.ranking_check(contest)
        for contest in contests.values()
        if kept_ranks.keeps(contest.track)
    ]


def _kept_ranks(contest: Contest, group: list[Submission]) -> dict[int, int] | None:
    """{entry id: rank} of the ranked entries of `group` from the kept ranking keys, or None
    where they are not kept (the caller counts or reads the window)."""
    from submissions.board import kept_ranks  # the kept keys read this module's helpers

    track = contest.track
    if not kept_ranks.keeps(track):
        return None
    keys = track.ranking.order
    rows = [
        {
            "id": entry.pk,
            "track_class": entry.track_class,
            **{key.column: getattr(entry, key.column) for key in keys},
        }
        for entry in group
        if entry.eligible
        and not any(key.required and getattr(entry, key.column) is None for key in keys)
    ]
    if not rows:
        return {}
    kept = kept_ranks.checked_keys(contest, kept_ranks.ranking_check(contest))
    if kept is None:
        return None
    for entry in group:  # its placement among its engine's is read from the same keys
        entry.__dict__[KNOWN_KEYS] = (kept.entries, kept.ranking_sum)
    return kept_ranks.ranks_in(kept, contest, rows)
