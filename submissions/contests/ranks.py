"""A contest's ranks, derived where they are read and never stored, and the board version every
change moves on.

A rank is the track's ranking (measures.ranking, `keyed_ranks`) said in SQL: the board computes
every rank of a page in its own query (a window function, `board_rank`), one entry's rank is one
count of the qualifying entries that beat it (`entry_rank`). A new, changed or deleted entry
therefore writes its own row and the contest's board version, never the ranks of everyone below
it, and an upload never waits on another entry's ranking."""

from __future__ import annotations

from django.db.models import BooleanField, Case, ExpressionWrapper, F, Q, Value, When, Window
from django.db.models.functions import Rank

from submissions import tracks
from submissions.board.versions import forget_kept_versions
from submissions.measures.ranking import RankKey
from submissions.models import Contest, Submission


def ranked_q(track: tracks.Track) -> Q:
    """The entries the track ranks: eligible, with every value its ranking requires."""
    required = {f"{key.column}__isnull": False for key in track.ranking.order if key.required}
    return Q(eligible=True, **required)


def _ranked_flag(track: tracks.Track) -> ExpressionWrapper:
    return ExpressionWrapper(ranked_q(track), output_field=BooleanField())


def _key_order(key: RankKey):
    # Missing values last in both directions, as RankKey.sort_value orders them.
    column = F(key.column)
    return column.desc(nulls_last=True) if key.descending else column.asc(nulls_last=True)


def board_rank(track: tracks.Track) -> Case:
    """Every entry's competition rank (1, 2, 2, 4) within its class, null when not ranked, as
    a window over the rows the query reads: read the contest's entries unfiltered beneath it
    (board.reads filters above the window) so a filtered board shows the overall ranks."""
    ranking = track.ranking
    partition = [_ranked_flag(track), *([F("track_class")] if ranking.class_key else [])]
    window = Window(
        Rank(), partition_by=partition, order_by=[_key_order(key) for key in ranking.order]
    )
    return Case(When(ranked_q(track), then=window), default=Value(None))


def _beats_q(keys: tuple[RankKey, ...], values: tuple) -> Q:
    """The entries strictly before these values in the keys' order (missing values last)."""
    beats = Q(pk__in=[])  # equal on every key: nobody beats it
    for key, value in reversed(list(zip(keys, values, strict=True))):
        if value is None:
            beats = Q(**{f"{key.column}__isnull": False}) | (
                Q(**{f"{key.column}__isnull": True}) & beats
            )
        else:
            lookup = "gt" if key.descending else "lt"
            beats = Q(**{f"{key.column}__{lookup}": value}) | (Q(**{key.column: value}) & beats)
    return beats


def entry_rank(*, entry: Submission) -> int | None:
    """One entry's rank: 1 + the qualifying entries of its contest (and class) that beat it.
    One count, whatever the board's size, and nothing written."""
    track = entry.contest.track
    ranking = track.ranking
    keys = ranking.order
    if not entry.eligible or any(
        key.required and getattr(entry, key.column) is None for key in keys
    ):
        return None
    rivals = Submission.objects.filter(ranked_q(track), contest_id=entry.contest_id)
    if ranking.class_key:
        rivals = rivals.filter(track_class=entry.track_class)
    values = tuple(getattr(entry, key.column) for key in keys)
    return 1 + rivals.filter(_beats_q(keys, values)).count()


def contest_rank(*, contest: Contest) -> int:
    """After a change to the contest's entries: ranks are derived, so nothing is rewritten;
    only the board version moves on. Returns how many stored ranks were written: none."""
    contest_board_changed(contest_id=contest.pk)
    return 0


def contest_board_changed(*, contest_id: int) -> None:
    """Move the contest's board version on, inside the caller's transaction: pages cached
    under the old version are never served again."""
    Contest.objects.filter(pk=contest_id).update(board_version=F("board_version") + 1)
    forget_kept_versions()


def contest_leader(*, contest: Contest) -> Submission | None:
    """An entry ranked 1 (the first class's, on a track with classes), or None."""
    ranking = contest.track.ranking
    order = [*(["track_class"] if ranking.class_key else []), *map(_key_order, ranking.order)]
    return (
        Submission.objects.filter(ranked_q(contest.track), contest=contest)
        .select_related("contest")
        .order_by(*order, "id")
        .first()
    )
