"""The contests' board versions a process keeps, told of every change by PostgreSQL.

A board served from this process's cache still cost one database round trip for its version
(about 0.15-0.26 ms of a 0.5 ms request on the development VM: most of the API board's cost over
a bare view, README "Speed"). So each web process keeps the versions it has read, and a trigger
on the contests' table (migration 0018) sends a notification on the `iibench_board` channel
whenever a board version or a slug changes, a contest is deleted or the table truncated. The
process listens on a connection of its own and, before answering from what it keeps, reads the
notifications that have arrived (a non-blocking read of that socket, no round trip): any one of
them empties what it keeps.

What keeps this true:
- a version read after a notification arrived is not kept (a generation count), so a read
  that raced a change is asked again next time;
- a version read inside a transaction is not kept (it may be rolled back), and a process that
  changes a board itself forgets at once and again on commit (`forget_kept_versions`);
- when the listening connection is down, or not yet up after a fork, every request asks the
  database, as before, and the connection is tried again every RETRY_SECONDS; after it comes
  back nothing read before is kept;
- a version is kept at most MAX_AGE_SECONDS, in case the listening connection died silently
  (TCP keepalives find that out within about 30 s).
Another process's change is seen once its notification reaches this process's socket: it is
sent at that change's commit, before the writer's answer goes out.

SQLite (the embedded default) has no notifications: there every request asks the database.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import TypeVar

import psycopg
from django.db import connection, transaction

logger = logging.getLogger(__name__)

CHANNEL = "iibench_board"
RETRY_SECONDS = 5.0
MAX_AGE_SECONDS = 60.0
# Entries' pages keep a version each (board/cache.py `entry_stamp`): a crawl of a million entries
# between two changes must not keep a million. Past this many, what is kept starts afresh.
MAX_KEPT = 20_000
LISTENER_OPTIONS = {"connect_timeout": 2, "keepalives": 1, "keepalives_idle": 10,
                    "keepalives_interval": 5, "keepalives_count": 3}  # fmt: skip

Stamp = TypeVar("Stamp")


class KeptVersions:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self._listener: psycopg.Connection | None = None
        self._next_try = 0.0
        self._generation = 0
        self._kept: dict[str, tuple[float, object]] = {}
        # Connections a forked child inherited: never used nor closed here (closing one would
        # end the parent's session on the socket they share).
        self._inherited: list[psycopg.Connection] = []

    def stamp(self, slug: str, read: Callable[[str], Stamp | None]) -> Stamp | None:
        """The kept version of `slug`'s board, else `read(slug)` (kept when it may be)."""
        with self._lock:
            listening = self._listening()
            if listening:
                self._drain()
                found = self._kept.get(slug)
                if found is not None and time.monotonic() - found[0] < MAX_AGE_SECONDS:
                    return found[1]  # type: ignore[return-value]
            generation = self._generation
        value = read(slug)
        if not listening or value is None or connection.in_atomic_block:
            return value
        with self._lock:
            if self._listener is not None:
                self._drain()
                if self._generation == generation:
                    if len(self._kept) >= MAX_KEPT:
                        self._kept.clear()
                    self._kept[slug] = (time.monotonic(), value)
        return value

    def forget(self) -> None:
        with self._lock:
            self._forget()

    def close(self) -> None:
        """Stop listening (a database about to be dropped: a test run's end)."""
        with self._lock:
            if self._listener is not None and os.getpid() == self._pid:
                with contextlib.suppress(psycopg.Error):
                    self._listener.close()
            self._listener = None
            self._forget()

    def _forget(self) -> None:
        self._generation += 1
        self._kept.clear()

    def _listening(self) -> bool:
        if os.getpid() != self._pid:  # a forked child: start afresh
            if self._listener is not None:
                self._inherited.append(self._listener)
            self._pid, self._listener, self._next_try = os.getpid(), None, 0.0
            self._forget()
        if self._listener is not None:
            return True
        if connection.vendor != "postgresql" or time.monotonic() < self._next_try:
            return False
        try:
            params = {**connection.get_connection_params(), **LISTENER_OPTIONS, "autocommit": True}
            listener = psycopg.connect(**params)
            listener.execute(f"LISTEN {CHANNEL}")
        except psycopg.Error as error:
            self._next_try = time.monotonic() + RETRY_SECONDS
            logger.warning("Board versions are read from the database each time: %s", error)
            return False
        self._listener = listener
        self._forget()  # what was read before it listened may have missed a change
        return True

    def _drain(self) -> None:
        """Read the notifications that have arrived, without waiting; any one forgets all."""
        listener = self._listener
        try:
            listener.pgconn.consume_input()
            arrived = False
            while listener.pgconn.notifies() is not None:
                arrived = True
            if arrived:
                self._forget()
            if listener.pgconn.status != psycopg.pq.ConnStatus.OK:
                raise psycopg.OperationalError("the listening connection is closed")
        except psycopg.Error as error:
            logger.warning("Board versions: the listening connection failed (%s)", error)
            self._forget()
            self._listener, self._next_try = None, time.monotonic() + RETRY_SECONDS
            with contextlib.suppress(psycopg.Error):
                listener.close()


kept_versions = KeptVersions()


def forget_kept_versions() -> None:
    """This process's own change to a board: seen at once, not only when its notification
    arrives, and again when the change's transaction commits (a version read before then,
    outside it, is the old one)."""
    kept_versions.forget()
    transaction.on_commit(kept_versions.forget)
