"""A contest's ranking keys, kept in order by each process, so that a page in another order than
the ranking finds its rows' ranks by bisection (O(page x log board)) instead of a window over
every ranked entry (O(board): 28-38 ms at 100,000 entries, docs/speed.md).

What keeps it true: the board tally (migration 0025) holds, beside the count of each group of
entries, the sum of a hash of each entry's class and ranking values, moved by PostgreSQL's
triggers in the same transaction as every change of an entry, by whatever made it. The keys
are kept with the ranked entries' count and sum as the same statement read them; a page reads
the tally's count and sum again in the same round trip as its rows, and uses the kept keys only
when both are unchanged. Otherwise the keys are read again, once per change and process, from
one scan in rank order (the sort in Python then finds them sorted). A hash sum can collide:
after a change, the odds that the count and the 32-bit sum both come out as before are about
one in four billion.

Not kept: on SQLite (no tally), for a ranking over a column the hash does not cover, and when
the tally disagrees with the entries it counts; there, and whenever this module answers None,
the ranks come from the window (contests/ranks.py), as before."""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import psycopg
from django.db import connection

from submissions import tracks
from submissions.board.compiled import CompiledValues, compiled_sql, rows_of
from submissions.board.order import TALLY_FLAGS, tally_kept
from submissions.measures.ranking import RankKey
from submissions.models import BoardTally, Contest, Submission

# The columns the tally's hash covers (migration 0025's RANKING_HASH): a ranking over any other
# column is not kept.
RANKED_COLUMNS = frozenset(
    {"track_class", "estimated", "seconds_to_target", "terminal_rate", "track_metric"}
)
# Contests whose keys a process keeps (some 25 MB for 100,000 ranked entries).
KEPT_BOARDS = 8


# The pure core: keys in order, a rank by bisection.


def order_key(keys: tuple[RankKey, ...], values: Iterable) -> tuple:
    """One entry's ranking values as a tuple that sorts as the window's ORDER BY does (key_order):
    each key best first, a missing value after every present one."""
    flat: list = []
    for key, value in zip(keys, values, strict=True):
        if value is None:
            flat += (1, 0)
        else:
            flat += (0, -value if key.descending else value)
    return tuple(flat)


@dataclass(frozen=True)
class KeptRanking:
    """The ranked entries' keys of one board, sorted within each class, each distinct key's
    rank, and the tally's count and ranking sum they were read with."""

    entries: int
    ranking_sum: int
    classes: Mapping[str, list[tuple]]
    ranks: Mapping[str, dict[tuple, int]]

    def rank(self, track_class: str, key: tuple) -> int:
        """1 + the entries of the class strictly before `key`: RANK() over the class. A kept
        entry's key is looked up; any other (an entry changed since) is placed by bisection."""
        found = self.ranks.get(track_class, {}).get(key)
        if found is not None:
            return found
        return 1 + bisect_left(self.classes.get(track_class, ()), key)


def kept_ranking(entries: int, ranking_sum: int, keyed: Iterable[tuple[str, tuple]]) -> KeptRanking:
    classes: dict[str, list[tuple]] = {}
    for track_class, key in keyed:
        classes.setdefault(track_class, []).append(key)
    return _ranked(entries, ranking_sum, classes)


def _ranked(entries: int, ranking_sum: int, classes: dict[str, list[tuple]]) -> KeptRanking:
    ranks: dict[str, dict[tuple, int]] = {}
    for track_class, keys in classes.items():
        keys.sort()  # read in rank order already: one pass
        # Last to first, so that tied keys keep the first one's position (their rank).
        ranks[track_class] = dict(zip(reversed(keys), range(len(keys), 0, -1), strict=True))
    return KeptRanking(entries, ranking_sum, classes, ranks)


# The edge: the tally's check and the keys' read.

_kept: OrderedDict[tuple, KeptRanking] = OrderedDict()
_lock = threading.Lock()


def keeps(track: tracks.Track) -> bool:
    """Whether this board's ranks can be kept here: PostgreSQL keeps its tally, and the hash
    covers every column its ranking compares."""
    return tally_kept(track) and all(
        key.column in RANKED_COLUMNS and not (key.descending and key.column == "estimated")
        for key in track.ranking.order
    )


def _tally_where(track: tracks.Track) -> str:
    flags = [TALLY_FLAGS[key.column] for key in track.ranking.order if key.required]
    return " AND ".join(["contest_id = %s", "eligible", *flags])


def ranking_check(contest: Contest) -> CompiledValues:
    """The ranked entries' count and ranking sum, from the tally: a read of a few rows, to be
    sent with the page's rows (board/compiled.py `read_now`)."""
    table = BoardTally._meta.db_table
    return compiled_sql(
        ("ranking-check", contest.pk, contest.workload),
        # Table and flag names from the model and TALLY_FLAGS, the contest a parameter.
        "SELECT COALESCE(SUM(entries), 0), COALESCE(SUM(ranking_sum), 0) "  # noqa: S608
        f"FROM {table} WHERE {_tally_where(contest.track)}",  # nosec B608
        (contest.pk,),
        ("entries", "ranking_sum"),
    )


def ranks_by_keys(
    contest: Contest, rows: list[dict], check: CompiledValues
) -> dict[int, int] | None:
    """{entry id: rank} of ranked `rows` (as the board reads them: their ranking columns and
    class among them), from the kept keys once `check` (read with the rows) shows them current;
    None when they cannot be kept (the caller reads the window)."""
    ((entries, ranking_sum),) = rows_of(check)
    kept = _current(contest, int(entries), int(ranking_sum))
    if kept is None:
        return None
    ranking = contest.track.ranking
    keys = ranking.order
    return {
        row["id"]: kept.rank(
            row["track_class"] if ranking.class_key else "",
            order_key(keys, (row[key.column] for key in keys)),
        )
        for row in rows
    }


def _current(contest: Contest, entries: int, ranking_sum: int) -> KeptRanking | None:
    board = (contest.pk, contest.workload)
    with _lock:
        kept = _kept.get(board)
        if kept is not None and (kept.entries, kept.ranking_sum) == (entries, ranking_sum):
            _kept.move_to_end(board)
            return kept
    kept = _read(contest)
    if kept is None or (kept.entries, kept.ranking_sum) != (entries, ranking_sum):
        # Another change came between the check and the read: this page reads the window,
        # the next one finds the keys read here current.
        return None
    return kept


def _key_sql(key: RankKey) -> str:
    """A key's two parts of `order_key`, as SQL: whether the value is missing, then the value
    (negated for a key best when largest), 0 or false when missing."""
    column = f'"{key.column}"'  # a Submission field's name (RankKey), never from outside
    boolean = Submission._meta.get_field(key.column).get_internal_type() == "BooleanField"
    value = f"-{column}" if key.descending else column
    return f"({column} IS NULL)::int, COALESCE({value}, {'false' if boolean else '0'})"


def _read(contest: Contest) -> KeptRanking | None:
    """The ranked entries' keys in rank order with the tally's count and sum, in one statement
    (one snapshot); kept when the two agree. None (and nothing kept) when they do not: a tally
    that disagrees with its entries is not trusted. The keys come out of the database as
    `order_key` makes them, so a row is a key as it is read (90,000 entries: no Python per
    entry but a slice where the track has classes)."""
    ranking = contest.track.ranking
    keys = ranking.order
    classes = ranking.class_key is not None
    required = "".join(f' AND "{key.column}" IS NOT NULL' for key in keys if key.required)
    order = ", ".join(
        f'"{key.column}" {"DESC" if key.descending else "ASC"} NULLS LAST' for key in keys
    )
    table, where = BoardTally._meta.db_table, _tally_where(contest.track)
    connection.close_if_health_check_failed()  # as Django's own cursor does
    connection.ensure_connection()
    # The driver's own cursor, in binary: 90,000 rows of numbers are read in half the time
    # (the values need none of Django's converters).
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(
            # Uncorrelated subqueries: run once, in the statement's snapshot. Names from the
            # models, RankKey and TALLY_FLAGS, values parameters.
            f"SELECT (SELECT COALESCE(SUM(entries), 0) FROM {table} WHERE {where})::bigint, "  # noqa: S608  # nosec B608
            f"(SELECT COALESCE(SUM(ranking_sum), 0) FROM {table} WHERE {where})::bigint, "
            f"{'track_class, ' if classes else ''}{', '.join(map(_key_sql, keys))} "
            f"FROM {Submission._meta.db_table} WHERE contest_id = %s AND eligible{required} "
            f"ORDER BY {'track_class, ' if classes else ''}{order}",
            (contest.pk, contest.pk, contest.pk),
            binary=True,
        )
        found = cursor.fetchall()
    if not found:
        return None  # nothing ranked: the window over nothing is as cheap
    entries, ranking_sum = int(found[0][0]), int(found[0][1])
    if entries != len(found):
        return None
    if classes:
        kept = kept_ranking(entries, ranking_sum, ((row[2], row[3:]) for row in found))
    else:
        kept = _ranked(entries, ranking_sum, {"": [row[2:] for row in found]})
    board = (contest.pk, contest.workload)
    with _lock:
        _kept[board] = kept
        _kept.move_to_end(board)
        while len(_kept) > KEPT_BOARDS:
            _kept.popitem(last=False)
    return kept


def forget_kept_ranks() -> None:
    """Empties what this process keeps (tests)."""
    with _lock:
        _kept.clear()
