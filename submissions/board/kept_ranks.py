"""A contest's ranking keys, kept in order by each process, so that a page in another order than
the ranking finds its rows' ranks by bisection (O(page x log board)) instead of a window over
every ranked entry (O(board): 28-38 ms at 100,000 entries, docs/speed.md).

What keeps it true: the board tally (migration 0025) holds, beside the count of each group of
entries, the sum of a hash of each entry's class and ranking values, moved by PostgreSQL's
triggers in the same transaction as every change of an entry, by whatever made it. The keys
are kept with the ranked entries' count and sum as the same statement read them; a page reads
the tally's count and sum again in the same round trip as its rows, and uses the kept keys only
when both are unchanged. Otherwise the keys catch up with the changes since they were read:
each entry carries the number of its last ranking change (migration 0026, one sequence, set by
a trigger), so one statement reads the tally and the entries changed after the last number
read, and the kept keys, moved by those alone, are used when they add up to the tally's count
and sum. When they do not (an entry deleted or moved to another contest leaves no change to
read; a change committed after a later one was read is behind the number) the keys are read
again, from one scan in rank order (the sort in Python then finds them sorted). Catching up
costs the changes and a copy of the kept map (some ms at 100,000 entries), reading all again
the board (139 ms at 100,000 entries, docs/speed.md). A hash sum can collide:
after a change, the odds that the count and the 32-bit sum both come out as before are about
one in four billion.

The same keys, grouped by class and engine (as `engine__iexact` compares it: `UPPER(engine)`),
give an entry's placement among its engine's ranked entries (the entry page's "beats X of N")
by bisection too: the hash covers the engine and an engine's change takes a change number
(migration 0038), so an entry moved to another engine is caught up with as a change of rank is.

Not kept: on SQLite (no tally), for a ranking over a column the hash does not cover, and when
the tally disagrees with the entries it counts; there, and whenever this module answers None,
the ranks come from the window (contests/ranks.py), as before."""

from __future__ import annotations

import threading
from bisect import bisect_left, bisect_right, insort
from collections import ChainMap, OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import psycopg
from django.db import connection

from submissions import tracks
from submissions.board.order import TALLY_FLAGS, tally_kept
from submissions.caches.compiled import CompiledValues, compiled_sql, rows_of
from submissions.measures.ranking import RankKey
from submissions.models import BoardTally, Contest, Submission

# The ranking columns the tally's hash covers (migration 0025's RANKING_HASH, with the engine
# since 0038): a ranking over any other column is not kept.
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


# What the keys hold of a ranked entry: its class, key, ranking hash and engine (upper case).
Held = tuple[str, tuple, int, str | None]


@dataclass(frozen=True)
class KeptRanking:
    """The ranked entries' keys of one board, sorted within each class, each distinct key's
    rank as read, and the tally's count and ranking sum they were read with; with each kept
    entry's class, key and hash, and the last ranking change read (`seq`), to catch up with
    the changes after it. Once caught up, a class's ranks as read still hold below the least
    key changed since (`changed_from`): every change moved only ranks at or after it. The same
    keys are kept again per class and engine (`engines`), for an entry's placement among its
    engine's."""

    entries: int
    ranking_sum: int
    classes: Mapping[str, list[tuple]]
    ranks: Mapping[str, dict[tuple, int]]
    # Entry id -> its class, key, hash and engine; None: removed (a layer of changes, caught_up).
    held: Mapping[int, Held | None] = field(default_factory=dict)
    seq: int = 0
    changed_from: Mapping[str, tuple] = field(default_factory=dict)
    # (class, engine as `engine__iexact` compares it: upper case, None when it has none) -> the
    # keys of its ranked entries, sorted.
    engines: Mapping[tuple[str, str | None], list[tuple]] = field(default_factory=dict)
    # Each engine as a kept entry spells it -> its upper case as the database made it.
    engine_names: Mapping[str, str] = field(default_factory=dict)

    def rank(self, track_class: str, key: tuple) -> int:
        """1 + the entries of the class strictly before `key`: RANK() over the class. A key
        read with the ranks and before every change since is looked up; any other is placed
        by bisection."""
        least = self.changed_from.get(track_class)
        if least is None or key < least:
            found = self.ranks.get(track_class, {}).get(key)
            if found is not None:
                return found
        return 1 + bisect_left(self.classes.get(track_class, ()), key)

    def placement(
        self, track_class: str, engine: str, key: tuple, entry_id: int
    ) -> tuple[int, int]:
        """(beaten, others): the ranked entries of the class and engine but `entry_id` itself,
        and those of them `key` beats (after it, not level with it), by bisection: what
        contests/ranks.py `entry_placement` would count."""
        keys = self.engines.get((track_class, engine), ())
        others, not_beaten = len(keys), bisect_right(keys, key)
        own = self.held.get(entry_id)
        if own is not None and (own[0], own[3]) == (track_class, engine):
            others -= 1
            if own[1] <= key:  # itself, among those level with or ahead of `key`
                not_beaten -= 1
        return others - not_beaten, others


def kept_ranking(
    entries: int,
    ranking_sum: int,
    keyed: Iterable[tuple[str, tuple, str | None]],
    held: Mapping[int, Held] | None = None,
    seq: int = 0,
) -> KeptRanking:
    """The keys of (class, key, engine) entries, `held` by id where given."""
    classes: dict[str, list[tuple]] = {}
    engines: dict[tuple[str, str | None], list[tuple]] = {}
    for track_class, key, engine in keyed:
        classes.setdefault(track_class, []).append(key)
        engines.setdefault((track_class, engine), []).append(key)
    return _ranked(entries, ranking_sum, classes, engines, held or {}, seq, {})


def _ranked(
    entries: int,
    ranking_sum: int,
    classes: dict[str, list[tuple]],
    engines: dict[tuple[str, str | None], list[tuple]],
    held: Mapping[int, Held],
    seq: int,
    engine_names: dict[str, str],
) -> KeptRanking:
    ranks: dict[str, dict[tuple, int]] = {}
    for track_class, keys in classes.items():
        keys.sort()  # read in rank order already: one pass
        # Last to first, so that tied keys keep the first one's position (their rank).
        ranks[track_class] = dict(zip(reversed(keys), range(len(keys), 0, -1), strict=True))
    for keys in engines.values():
        keys.sort()
    return KeptRanking(
        entries, ranking_sum, classes, ranks, held, seq, engines=engines, engine_names=engine_names
    )


@dataclass(frozen=True)
class RankingChange:
    """One entry's state after its last ranking change: ranked or not (ineligible, a required
    value missing), its class, key and hash, the change's number, and its engine (upper
    case, and as the entry spells it)."""

    entry_id: int
    ranked: bool
    track_class: str
    key: tuple
    hash: int
    seq: int
    engine: str | None = None
    spelled: str | None = None


def caught_up(
    kept: KeptRanking, changes: Iterable[RankingChange], entries: int, ranking_sum: int
) -> KeptRanking | None:
    """`kept` with `changes` applied, when the result has the tally's `entries` and
    `ranking_sum`; None when it does not (a change missed: an entry deleted, moved to another
    contest, or committed after a later one was read), and the keys are then read again.
    `kept` is left as it was (the threads reading it share it): the classes changed are
    copied (a list copy each), and the held map gets a layer of the changes over it, the
    layers merged into one map every HELD_LAYERS catch-ups. No Python per unchanged entry
    (the classes' and engines' lists changed are copied whole, a C-level copy each)."""
    classes, engines = dict(kept.classes), dict(kept.engines)
    copied: set[str] = set()
    engines_copied: set[tuple[str, str | None]] = set()
    changed: dict[int, Held | None] = {}
    changed_from = dict(kept.changed_from)

    def moved(track_class: str, key: tuple) -> list[tuple]:
        least = changed_from.get(track_class)
        changed_from[track_class] = key if least is None else min(least, key)
        return _own(classes, copied, track_class)

    held = ChainMap(changed, *_layers(kept.held))
    count, total, seq = kept.entries, kept.ranking_sum, kept.seq
    spelled: dict[str, str | None] = {}
    for change in changes:
        seq = max(seq, change.seq)
        if change.spelled is not None:
            spelled[change.spelled] = change.engine
        before = held.get(change.entry_id)
        if before is not None:
            track_class, key, hashed, engine = before
            if not _removed(moved(track_class, key), key) or not _removed(
                _own(engines, engines_copied, (track_class, engine)), key
            ):
                return None  # not where it was kept: read them all again
            count, total = count - 1, total - hashed
        changed[change.entry_id] = None  # a removal, unless ranked below
        if change.ranked:
            insort(moved(change.track_class, change.key), change.key)
            group = (change.track_class, change.engine)
            insort(_own(engines, engines_copied, group), change.key)
            changed[change.entry_id] = (change.track_class, change.key, change.hash, change.engine)
            count, total = count + 1, total + change.hash
    if (count, total) != (entries, ranking_sum):
        return None
    names = kept.engine_names
    if any(names.get(name) != engine for name, engine in spelled.items()):
        names = {**names, **spelled}  # a new spelling (a copy: other threads read the old)
    return KeptRanking(
        entries, ranking_sum, classes, kept.ranks, _merged(held), seq, changed_from, engines, names
    )


def _removed(keys: list[tuple], key: tuple) -> bool:
    """`key` taken out of the sorted `keys` once; False when it is not there."""
    at = bisect_left(keys, key)
    if at == len(keys) or keys[at] != key:
        return False
    del keys[at]
    return True


# Layers of changes a held map keeps over its base before they are merged into one map.
HELD_LAYERS = 8


def _layers(held: Mapping) -> list:
    return list(held.maps) if isinstance(held, ChainMap) else [held]


def _merged(held: ChainMap) -> Mapping:
    """`held` itself, or, past HELD_LAYERS, its layers merged into one map (a copy of the base,
    the layers' changes applied oldest first, removals dropped)."""
    if len(held.maps) <= HELD_LAYERS:
        return held
    merged = dict(held.maps[-1])
    for layer in reversed(held.maps[:-1]):
        for entry_id, value in layer.items():
            if value is None:
                merged.pop(entry_id, None)
            else:
                merged[entry_id] = value
    return merged


def _own(groups: dict, copied: set, group) -> list[tuple]:
    """The keys of a group (a class, or a class and engine), copied once before the first
    change to them."""
    if group not in copied:
        groups[group] = list(groups.get(group, ()))
        copied.add(group)
    return groups[group]


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
    sent with the page's rows (caches/compiled.py `read_now`)."""
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
    kept = checked_keys(contest, check)
    return None if kept is None else ranks_in(kept, contest, rows)


def checked_keys(contest: Contest, check: CompiledValues) -> KeptRanking | None:
    """The contest's kept keys once `check` (read with the page) shows them current, caught up
    or read again if need be; None when they cannot be kept."""
    ((entries, ranking_sum),) = rows_of(check)
    return _current(contest, int(entries), int(ranking_sum))


def ranks_in(kept: KeptRanking, contest: Contest, rows: list[dict]) -> dict[int, int]:
    """{entry id: rank} of ranked `rows` (dicts of their ranking columns and class) in `kept`."""
    ranking = contest.track.ranking
    keys = ranking.order
    return {
        row["id"]: kept.rank(
            row["track_class"] if ranking.class_key else "",
            order_key(keys, (row[key.column] for key in keys)),
        )
        for row in rows
    }


def placement_in(
    contest: Contest, entry: Submission, checked: tuple[int, int]
) -> tuple[int, int] | None:
    """(beaten, others) of a ranked `entry` among the other ranked entries of its engine in its
    contest (and class), from the keys a check found current with the tally's `checked` count
    and sum (`checked_keys`, as the entry's rank was read): two bisections, no statement. None
    when the keys kept now are not those (changed since), or no kept entry spells the engine as
    the entry does (its upper case is then the database's to say: `placement_by_keys`)."""
    with _lock:
        kept = _kept.get((contest.pk, contest.workload))
    if kept is None or (kept.entries, kept.ranking_sum) != checked:
        return None
    engine = kept.engine_names.get(entry.engine)
    return None if engine is None else _placed(kept, entry, engine)


def placement_by_keys(contest: Contest, entry: Submission) -> tuple[int, int] | None:
    """`placement_in` the keys checked current by one statement, which reads the tally's count
    and sum and the entry's engine as the database upper-cases it (a few rows, whatever the
    board's size). None where the keys are not kept or not current: the caller counts
    (contests/ranks.py `entry_placement`)."""
    if not keeps(contest.track):
        return None
    with connection.cursor() as cursor:
        cursor.execute(
            # The tally's SQL from the models; the contest and the engine parameters.
            f"SELECT {_tally_sql(contest)}, {ENGINE_GROUP.format('%s')}",  # nosec B608
            (contest.pk, contest.pk, entry.engine),
        )
        entries, ranking_sum, engine = cursor.fetchone()
    kept = _current(contest, int(entries), int(ranking_sum))
    return None if kept is None else _placed(kept, entry, engine)


def _placed(kept: KeptRanking, entry: Submission, engine: str) -> tuple[int, int]:
    ranking = entry.contest.track.ranking
    keys = ranking.order
    return kept.placement(
        entry.track_class if ranking.class_key else "",
        engine,
        order_key(keys, (getattr(entry, key.column) for key in keys)),
        entry.pk,
    )


def _current(contest: Contest, entries: int, ranking_sum: int) -> KeptRanking | None:
    board = (contest.pk, contest.workload)
    with _lock:
        kept = _kept.get(board)
        if kept is not None and (kept.entries, kept.ranking_sum) == (entries, ranking_sum):
            _kept.move_to_end(board)
            return kept
    found = _catch_up(contest, kept) if kept is not None else None
    if found is None:
        found = _read(contest)
    if found is None:
        return None
    _keep(board, found)
    if (found.entries, found.ranking_sum) != (entries, ranking_sum):
        # Another change came between the check and the read: this page reads the window,
        # the next one finds the keys read here current.
        return None
    return found


def _keep(board: tuple, kept: KeptRanking) -> None:
    with _lock:
        _kept[board] = kept
        _kept.move_to_end(board)
        while len(_kept) > KEPT_BOARDS:
            _kept.popitem(last=False)


# What a ranking compares, hashed as the tally's triggers hash it (migration 0025's
# RANKING_HASH): the same expression, or no sum ever agrees and every change reads all again.
RANKING_HASH = (
    "hashtext(ROW(track_class, estimated, seconds_to_target, terminal_rate, track_metric, engine)"
    "::text)::bigint"
)
# An entry's engine as `engine__iexact` compares it on PostgreSQL (Django's `UPPER(...::text)`):
# the database's own upper case, whatever Python's says of a name outside ASCII.
ENGINE_GROUP = "UPPER({}::text)"
# The class of a track that has none, as SQL (a typed literal: the rows are read in binary).
NO_CLASS = "''::text"
# More changes than this since the keys were read: reading them all again is as quick.
CATCH_UP_LIMIT = 2_000


def _key_sql(key: RankKey) -> str:
    """A key's two parts of `order_key`, as SQL: whether the value is missing, then the value
    (negated for a key best when largest), 0 or false when missing."""
    column = f'"{key.column}"'  # a Submission field's name (RankKey), never from outside
    boolean = Submission._meta.get_field(key.column).get_internal_type() == "BooleanField"
    value = f"-{column}" if key.descending else column
    return f"({column} IS NULL)::int, COALESCE({value}, {'false' if boolean else '0'})"


def _tally_sql(contest: Contest) -> str:
    """The ranked entries' count and ranking sum, as two uncorrelated subqueries: run once, in
    the statement's snapshot (table and flag names from the models and TALLY_FLAGS)."""
    table, where = BoardTally._meta.db_table, _tally_where(contest.track)
    return (
        f"(SELECT COALESCE(SUM(entries), 0) FROM {table} WHERE {where})::bigint, "  # noqa: S608  # nosec B608
        f"(SELECT COALESCE(SUM(ranking_sum), 0) FROM {table} WHERE {where})::bigint"
    )


def ranking_tally(contest: Contest) -> tuple[int, int, int]:
    """(ranked entries, their ranking sum, the contest's last ranking change number) in one
    statement (one snapshot): a read of a few tally rows and one end of an index."""
    table = Submission._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            # The tally's SQL and the table's name from the models; the contest a parameter.
            f"SELECT {_tally_sql(contest)}, "  # noqa: S608  # nosec B608
            # The end of the index on (contest, ranking_seq), said so: the planner of a table
            # without statistics chose another index and read every entry of the contest.
            f"COALESCE((SELECT ranking_seq FROM {table} WHERE contest_id = %s "
            "ORDER BY ranking_seq DESC LIMIT 1), 0)",
            (contest.pk, contest.pk, contest.pk),
        )
        entries, ranking_sum, seq = cursor.fetchone()
    return int(entries), int(ranking_sum), int(seq)


def _fetch(sql: str, params: tuple) -> list[tuple]:
    connection.close_if_health_check_failed()  # as Django's own cursor does
    connection.ensure_connection()
    # The driver's own cursor, in binary: 90,000 rows of numbers are read in half the time
    # (the values need none of Django's converters).
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, params, binary=True)
        return cursor.fetchall()


def _ranked_where(ranking) -> str:
    """What makes an entry ranked, as SQL: eligible, with every required key present."""
    required = (f'"{key.column}" IS NOT NULL' for key in ranking.order if key.required)
    return " AND ".join(["eligible", *required])


def _entry_columns(ranking) -> str:
    """An entry as the kept keys hold it, as SQL columns: its id, its ranking hash, its class
    (none: NO_CLASS), its engine as spelled and upper-cased (ENGINE_GROUP) and its key as
    `order_key` makes it."""
    track_class = "track_class" if ranking.class_key else NO_CLASS
    keys = ", ".join(map(_key_sql, ranking.order))
    return f"id, {RANKING_HASH}, {track_class}, engine, {ENGINE_GROUP.format('engine')}, {keys}"


def _read(contest: Contest) -> KeptRanking | None:
    """The ranked entries' keys in rank order with the tally's count and sum, in one statement
    (one snapshot); kept when the two agree. None (and nothing kept) when they do not: a tally
    that disagrees with its entries is not trusted. The keys come out of the database as
    `order_key` makes them, so a row is a key as it is read (90,000 entries: no Python per
    entry but a slice), with its entry's id and hash; and the contest's last ranking change."""
    ranking = contest.track.ranking
    order = ", ".join(
        f'"{key.column}" {"DESC" if key.descending else "ASC"} NULLS LAST' for key in ranking.order
    )
    table = Submission._meta.db_table
    found = _fetch(
        # Names from the models, RankKey and TALLY_FLAGS, values parameters.
        f"SELECT {_tally_sql(contest)}, "  # noqa: S608  # nosec B608
        f"(SELECT MAX(ranking_seq) FROM {table} WHERE contest_id = %s), {_entry_columns(ranking)} "
        f"FROM {table} WHERE contest_id = %s AND {_ranked_where(ranking)} "
        f"ORDER BY {'track_class, ' if ranking.class_key else ''}{order}",
        (contest.pk, contest.pk, contest.pk, contest.pk),
    )
    if not found:
        return None  # nothing ranked: the window over nothing is as cheap
    entries, ranking_sum, seq = int(found[0][0]), int(found[0][1]), int(found[0][2])
    if entries != len(found):
        return None
    classes: dict[str, list[tuple]] = {}
    engines: dict[tuple[str, str | None], list[tuple]] = {}
    names: dict[str, str] = {}  # as spelled -> upper case: one string per engine, not per entry
    held = {}
    for row in found:
        key, engine = row[8:], names.get(row[6])
        if engine is None:
            engine = names[row[6]] = row[7]
        classes.setdefault(row[5], []).append(key)
        engines.setdefault((row[5], engine), []).append(key)
        held[row[3]] = (row[5], key, row[4], engine)
    return _ranked(entries, ranking_sum, classes, engines, held, seq, names)


def _catch_up(contest: Contest, kept: KeptRanking) -> KeptRanking | None:
    """`kept` caught up with the ranking changes after its last (one statement: the tally and
    the entries changed since, by the index on contest and change number); None when there are
    more than CATCH_UP_LIMIT or they do not add up to the tally (`caught_up`)."""
    ranking = contest.track.ranking
    table = Submission._meta.db_table
    found = _fetch(
        # One row at least (the tally's), the changes joined to it. Names from the models.
        f"SELECT {_tally_sql(contest)}, ({_ranked_where(ranking)}), ranking_seq, "  # noqa: S608  # nosec B608
        f"{_entry_columns(ranking)} "
        f"FROM (SELECT 1) AS tally LEFT JOIN {table} "
        "ON contest_id = %s AND ranking_seq > %s ORDER BY ranking_seq LIMIT %s",
        (contest.pk, contest.pk, contest.pk, kept.seq, CATCH_UP_LIMIT + 1),
    )
    if len(found) > CATCH_UP_LIMIT:
        return None
    entries, ranking_sum = int(found[0][0]), int(found[0][1])
    changes = [
        RankingChange(row[4], bool(row[2]), row[6], row[9:], row[5], row[3], row[8], row[7])
        for row in found
        if row[4] is not None
    ]
    return caught_up(kept, changes, entries, ranking_sum)


def forget_kept_ranks() -> None:
    """Empties what this process keeps (tests)."""
    with _lock:
        _kept.clear()
