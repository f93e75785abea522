"""How much of the database a test's transaction has read, from PostgreSQL's own counters: a
page or a build that costs its page, not the registry, reads as many rows at two sizes."""

from __future__ import annotations

from django.db import connection


def rows_read(*tables: str) -> int:
    """The rows of `tables` the scans of this transaction have returned so far (sequential
    scans' rows and index fetches, `pg_stat_xact_user_tables`; PostgreSQL only)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT COALESCE(SUM(COALESCE(seq_tup_read, 0) + COALESCE(idx_tup_fetch, 0)), 0) "
            "FROM pg_stat_xact_user_tables WHERE relname = ANY(%s)",
            [list(tables)],
        )
        return int(cursor.fetchone()[0])
