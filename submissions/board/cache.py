"""The rendered boards' cache, keyed on the contest's board version."""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import psycopg
from django.db import connection
from django.utils import timezone

from submissions.board.versions import kept_versions
from submissions.board.visibility import is_organizer
from submissions.caches.compiled import compiled_instances, instances_of, preparing, reading_ahead
from submissions.caches.soft_cache import cache_get, cache_set
from submissions.models import Contest

# Rendered boards are cached under the contest's board_version, which every change moves on in
# the same transaction (contest_ranks.contest_board_changed): a board is never served stale. What
# time changes (the deadline passing, the results being published) is handled by storing each
# page with the moment it stops being true.
BOARD_CACHE_SECONDS = 600
# Rendered bodies that cannot change (bytes) are also kept in the process, under the same keys:
# a key holds the board version, so a kept body is as fresh as the shared cache's, and reading
# a 1,000-row page back from the shared cache cost a copy and an unpickling of half a megabyte
# on every request. The last few are kept: a handful of boards and page sizes are most asked.
KEPT_BODIES = 16
_kept: OrderedDict[str, tuple] = OrderedDict()
_kept_lock = threading.Lock()
# Entries' pages are kept apart (a crawl of entries must not push the boards out), more of them:
# an entry page is about 10 kB (178 kB for a run of 2,000,000 reports, its plot's points).
KEPT_ENTRY_BODIES = 64
_kept_entries: OrderedDict[str, tuple] = OrderedDict()
_SHELF_SIZES = {"boards": KEPT_BODIES, "entries": KEPT_ENTRY_BODIES}
# What is kept a few seconds whatever changes (kept_for): the entry page's wings' panels.
KEPT_BRIEFLY = 1_024
_kept_briefly: OrderedDict[str, tuple[float, object]] = OrderedDict()


@dataclass(frozen=True)
class BoardStamp:
    contest_id: int
    version: int


STAMP_SQL = "SELECT id, board_version FROM submissions_contest WHERE slug = %s"
# An entry's page changes with the entry (every save of it moves its contest's board version,
# signals.py), its contest's ranks and its verification outcome (runner/verdicts.py moves the
# version too): it is cached under its contest's board version, read with the entry's contest.
ENTRY_STAMP_SQL = (
    "SELECT s.contest_id, c.board_version, s.owner_id FROM submissions_submission s "
    "JOIN submissions_contest c ON c.id = s.contest_id WHERE s.id = %s"
)


@dataclass(frozen=True)
class EntryStamp:
    contest_id: int
    version: int
    owner_id: int


def board_stamp(slug: str) -> BoardStamp | None:
    """The contest's id and board version, or None. Plain SQL: on a cached page this lookup is
    the only database work, and compiling the ORM query cost as much as running it. On
    PostgreSQL the process keeps the versions it read while it is told of every change
    (board/versions.py), and reads one with a prepared statement on the driver's connection:
    Django's cursor binds on the client (the slug quoted in Python, ~45 us) and never
    prepares; this halves the lookup."""
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(STAMP_SQL, [slug])
            row = cursor.fetchone()
        return BoardStamp(*row) if row else None
    return kept_versions.stamp(slug, lambda slug: _read_row(STAMP_SQL, slug, BoardStamp))


def entry_stamp(pk: int) -> EntryStamp | None:
    """The entry's contest, its board version and the entry's owner, or None for no such entry:
    what its cached page is keyed on, kept by the process as the boards' versions are (a
    notification of any contest's change forgets them all)."""
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(ENTRY_STAMP_SQL, [pk])
            row = cursor.fetchone()
        return EntryStamp(*row) if row else None
    return kept_versions.stamp(f"entry:{pk}", lambda _: _read_row(ENTRY_STAMP_SQL, pk, EntryStamp))


def _read_row(sql: str, value, stamp_type):
    # As Django's own cursor does: a persistent connection the server dropped (a restart) is
    # replaced here, not found dead by the query (CONN_HEALTH_CHECKS).
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    started = time.monotonic()
    # A plain (server-binding) cursor: Django's connection makes client-binding ones. Its
    # errors are Django's (a server gone away is a 503 like any other query's).
    driver = preparing(connection.connection)
    with connection.wrap_database_errors, psycopg.Cursor(driver) as cursor:
        row = cursor.execute(sql, (value,), prepare=True).fetchone()
    if connection.queries_logged:  # as Django's cursor would: tests count the queries
        connection.queries_log.append(
            {"sql": sql % repr(value), "time": f"{time.monotonic() - started:.3f}"}
        )
    return stamp_type(*row) if row else None


def board_cache_key(kind: str, stamp: BoardStamp | EntryStamp, request) -> str:
    """What a rendered board depends on besides time: the data's version, who looks
    (organizers see embargoed boards) and the URL."""
    audience = "organizer" if is_organizer(request.user) else "public"
    # The scheme too: a page may hold absolute links (the entry page's share links).
    url = f"{request.scheme}://{request.get_host()}{request.get_full_path()}"
    digest = hashlib.sha256(url.encode()).hexdigest()[:32]
    return f"board:{kind}:{stamp.contest_id}:{stamp.version}:{audience}:{digest}"


def _unversioned(key: str, stamp: BoardStamp) -> str:
    """What a board cache key names whatever the board's version: the same page of the same
    board for the same audience (what its builds read: caches/compiled.py `reading_ahead`)."""
    return key.replace(f":{stamp.contest_id}:{stamp.version}:", f":{stamp.contest_id}:", 1)


def next_state_change(contest: Contest, now):
    """When the contest next closes or publishes its results, if that is still to come."""
    moments = [m for m in (contest.deadline, contest.results_published_at) if m and m > now]
    return min(moments, default=None)


def cached_board(
    key: str,
    stamp: BoardStamp,
    build,
    contest: Contest | None = None,
    *,
    immutable: bool = False,
    reads: Callable[[int], list] | None = None,
    shelf: str = "boards",
):
    """`build(contest)`'s value for this key, built at most once per board version and state.
    The contest is read only to build (pass it when the caller has it already). `immutable`:
    the value (bytes, str, tuples of them) is never changed by its readers, so the process
    may keep it and hand out the same object. `reads(contest id)`: the compiled statements
    the build reads that depend on the contest alone, read ahead at once when it builds (the
    contest's own row among them when it is not passed). `shelf`: where the process keeps
    an immutable value ("boards", or "entries" for the entries' pages, kept apart)."""
    now = timezone.now()
    hit = _kept_get(key, shelf) if immutable else None
    if hit is None:
        hit = cache_get(key)
        if hit is not None and immutable:
            _keep(key, hit, shelf)
    if hit is not None and (hit[0] is None or now < hit[0]):
        return hit[1]
    ahead = [*(reads(stamp.contest_id) if reads else []), contest_key(stamp.contest_id)]
    with reading_ahead(ahead if contest is None else ahead[:-1], learn=_unversioned(key, stamp)):
        contest = contest or contest_read(stamp.contest_id)
        value = build(contest)
    entry = (next_state_change(contest, now), value)
    cache_set(key, entry, BOARD_CACHE_SECONDS)
    if immutable:
        _keep(key, entry, shelf)
    return value


def contest_key(contest_id: int) -> tuple:
    return ("contest", contest_id)


def contest_read(contest_id: int) -> Contest:
    """The contest a board is built for, by a statement compiled once per process."""
    compiled = compiled_instances(
        contest_key(contest_id), lambda: Contest.objects.filter(pk=contest_id)
    )
    found = instances_of(compiled)
    if not found:
        raise Contest.DoesNotExist(f"No contest {contest_id}.")
    return found[0]


def kept_body(key: str):
    """The value this process keeps for `key` (an `immutable` one of `cached_board`) while it
    is still true, else None: nothing is built or fetched from the shared cache."""
    hit = _kept_get(key)
    if hit is None or (hit[0] is not None and timezone.now() >= hit[0]):
        return None
    return hit[1]


def _shelf(name: str) -> OrderedDict[str, tuple]:
    return _kept_entries if name == "entries" else _kept


def _kept_get(key: str, shelf: str = "boards") -> tuple | None:
    with _kept_lock:
        kept = _shelf(shelf)
        hit = kept.get(key)
        if hit is not None:
            kept.move_to_end(key)
        return hit


def _keep(key: str, entry: tuple, shelf: str = "boards") -> None:
    with _kept_lock:
        kept = _shelf(shelf)
        kept[key] = entry
        kept.move_to_end(key)
        while len(kept) > _SHELF_SIZES[shelf]:
            kept.popitem(last=False)


def kept_for(key: str, seconds: float, make: Callable[[], object]):
    """`make()`'s value, kept by the process for `seconds` under `key` whatever changes
    meanwhile: for what may be that much behind (the entry page's reruns panel)."""
    now = time.monotonic()
    with _kept_lock:
        hit = _kept_briefly.get(key)
        if hit is not None and now < hit[0]:
            return hit[1]
    value = make()
    with _kept_lock:
        _kept_briefly[key] = (now + seconds, value)
        _kept_briefly.move_to_end(key)
        while len(_kept_briefly) > KEPT_BRIEFLY:
            _kept_briefly.popitem(last=False)
    return value


def forget_kept_boards() -> None:
    """Empties the process's kept bodies (tests that start from an empty cache)."""
    with _kept_lock:
        _kept.clear()
        _kept_entries.clear()
        _kept_briefly.clear()
