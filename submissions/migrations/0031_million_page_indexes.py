"""Every sort a page or the API offers read from an index, and the search from a stored one
(issue 44): a page then costs its own rows, not the registry's.

- A board's sorts (board/query.py: each column in both directions, missing values last both
  ways, as board/order.py's ORDER BY says them): over the ranked entries with the classic
  ranking's keys after the column (a page of them read in its whole order), over the entries
  not ranked (read apart), and for the sorts a board ranked on its metric offers over every
  entry (the rest of its order sorted on top). The whole rank
  order of the classic ranking (a page in rank order, or the reverse, read without a sort).
  The newest entries first (the API's list), a contest's (the feed), and an engine's or CPU
  model's by their case-insensitive name (`__iexact` is `UPPER(col::text) = UPPER(...)` on
  PostgreSQL), with their best terminal rate and the contests holding them.
- The search's document as a stored generated column (`search_document`, a tsvector: the
  published entrant name, engine, CPU and server weighted A, the solution text B) with a GIN
  index: a query is one index look-up instead of a `to_tsvector` per row.

PostgreSQL's alone (NULLS LAST in an index, expression indexes, tsvector): the models do not
know these, so no form, copy or `makemigrations` sees them. SQLite keeps its plainer indexes
and searches with a filter of every word (correct, slower; entries/selectors.py says so)."""

from django.db import migrations

TABLE = "submissions_submission"

# (index name suffix, the columns after contest_id): each sort of a board, both directions.
BOARD_SORTS = {
    "elapsed": "elapsed_seconds {dir} NULLS LAST, terminal_rate DESC NULLS LAST",
    "terminal": "terminal_rate {dir} NULLS LAST",
    "average": "average_rate {dir} NULLS LAST",
    "metric": "track_metric {dir} NULLS LAST",
    "size": "db_size_bytes {dir} NULLS LAST",
    "write": "write_kb_per_row {dir} NULLS LAST",
    "cpu": "server_cpu_us_per_row {dir} NULLS LAST",
    "verified": "verified_now {dir} NULLS LAST",
    "hardware": "cores {dir} NULLS LAST, memory_gb ASC NULLS LAST",
    "estimated": "estimated {dir} NULLS LAST, seconds_to_target ASC NULLS LAST",
    "engine": "lower(storage_engine::text) {dir} NULLS LAST",
    "entrant": (
        "lower(CASE WHEN publish THEN entrant_name ELSE 'Anonymous entrant' END::text) "
        "{dir} NULLS LAST"
    ),
}
DIRECTIONS = {"asc": "ASC", "desc": "DESC"}
# The sorts with an index over every entry too: those a board of a track ranked on its metric
# offers (board/query.py's COMMON_SORTS and its metric; its entries are ranked on other columns
# than the classic ranking's), and the average rate (the leaderboard bench's bare query reads
# every entry in that order).
EVERY_ENTRY_SORTS = ("metric", "verified", "hardware", "engine", "entrant", "average")
# The classic ranking (ranks.key_order of tracks.DEFAULT_TRACK) and what it ranks (ranked_q).
RANK_KEYS = "estimated, seconds_to_target, terminal_rate DESC NULLS LAST"
RANKED = "eligible AND seconds_to_target IS NOT NULL"

SEARCH_DOCUMENT = """
setweight(to_tsvector('english'::regconfig,
    CASE WHEN publish THEN entrant_name::text ELSE '' END), 'A')
|| setweight(to_tsvector('english'::regconfig,
    engine::text || ' ' || storage_engine::text || ' ' || cpu_model::text || ' '
    || server_family::text || ' ' || server_version::text), 'A')
|| setweight(to_tsvector('english'::regconfig, solution_description), 'B')
"""


def _statements() -> list[tuple[str, str]]:
    """(CREATE, DROP) pairs, in order."""
    made = []
    for suffix, columns in BOARD_SORTS.items():
        for short, direction in DIRECTIONS.items():
            sort = columns.format(dir=direction)
            # The ranked entries (a page reads them apart from the others) in the whole order
            # of a page of them: the column, then the classic ranking's keys, then the number.
            # Without them a column of few values (verified, cores) or none yet (the costs)
            # leaves PostgreSQL sorting every tied entry for a page.
            ranked = f"ranked_{suffix}_{short}_idx"
            made.append(
                (
                    f"CREATE INDEX {ranked} ON {TABLE} (contest_id, {sort}, {RANK_KEYS}, id) "
                    f"WHERE {RANKED}",
                    f"DROP INDEX IF EXISTS {ranked}",
                )
            )
            # The entries not ranked, ordered by the column and the number, apart: read from
            # an index over every entry, a page of them waits behind all the ranked entries
            # the order puts first (a tenth of a board not ranked, every one of them with 4
            # cores: 305 ms for a page at 100,000 entries).
            unranked = f"unranked_{suffix}_{short}_idx"
            made.append(
                (
                    f"CREATE INDEX {unranked} ON {TABLE} (contest_id, {sort}, id) "
                    f"WHERE NOT ({RANKED})",
                    f"DROP INDEX IF EXISTS {unranked}",
                )
            )
            if suffix in EVERY_ENTRY_SORTS:
                # Every entry by the column, the rest of the order sorted on top of it.
                name = f"board_{suffix}_{short}_idx"
                made.append(
                    (
                        f"CREATE INDEX {name} ON {TABLE} (contest_id, {sort}, id)",
                        f"DROP INDEX IF EXISTS {name}",
                    )
                )
    made += [
        # The classic ranking's whole order (ranks.key_order): a page in rank order, and its
        # reverse read backwards, without a sort on top of the index.
        (
            f"CREATE INDEX board_rank_order_idx ON {TABLE} "
            f"(contest_id, {RANK_KEYS}, id) WHERE {RANKED}",
            "DROP INDEX IF EXISTS board_rank_order_idx",
        ),
        (
            f"CREATE INDEX entries_newest_idx ON {TABLE} (submitted_at DESC, id DESC)",
            "DROP INDEX IF EXISTS entries_newest_idx",
        ),
        # A contest's entries newest first: the feed's entries published after their contest.
        (
            f"CREATE INDEX contest_newest_idx ON {TABLE} (contest_id, submitted_at DESC, id DESC)",
            "DROP INDEX IF EXISTS contest_newest_idx",
        ),
        (
            f"CREATE INDEX entries_of_engine_idx ON {TABLE} "
            "(UPPER(engine::text), submitted_at DESC, id DESC)",
            "DROP INDEX IF EXISTS entries_of_engine_idx",
        ),
        (
            f"CREATE INDEX entries_of_cpu_idx ON {TABLE} "
            "(UPPER(cpu_model::text), submitted_at DESC, id DESC)",
            "DROP INDEX IF EXISTS entries_of_cpu_idx",
        ),
        # Which contests hold a system's entries: one look-up per contest.
        (
            f"CREATE INDEX engine_in_contest_idx ON {TABLE} (UPPER(engine::text), contest_id)",
            "DROP INDEX IF EXISTS engine_in_contest_idx",
        ),
        (
            f"CREATE INDEX cpu_in_contest_idx ON {TABLE} (UPPER(cpu_model::text), contest_id)",
            "DROP INDEX IF EXISTS cpu_in_contest_idx",
        ),
        # A system's best terminal rate (and the best before a date) from the top of these.
        (
            f"CREATE INDEX best_of_engine_idx ON {TABLE} "
            "(UPPER(engine::text), terminal_rate DESC NULLS LAST, id)",
            "DROP INDEX IF EXISTS best_of_engine_idx",
        ),
        (
            f"CREATE INDEX best_of_cpu_idx ON {TABLE} "
            "(UPPER(cpu_model::text), terminal_rate DESC NULLS LAST, id)",
            "DROP INDEX IF EXISTS best_of_cpu_idx",
        ),
        (
            f"ALTER TABLE {TABLE} ADD COLUMN search_document tsvector "
            f"GENERATED ALWAYS AS ({SEARCH_DOCUMENT}) STORED",
            f"ALTER TABLE {TABLE} DROP COLUMN IF EXISTS search_document",
        ),
        (
            f"CREATE INDEX entries_search_idx ON {TABLE} USING GIN (search_document)",
            "DROP INDEX IF EXISTS entries_search_idx",
        ),
    ]
    return made


def _create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for create, _ in _statements():
            schema_editor.execute(create)


def _drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for _, drop in reversed(_statements()):
            schema_editor.execute(drop)


class Migration(migrations.Migration):
    dependencies = [
        ("submissions", "0030_verified_now"),
    ]

    operations = [
        migrations.RunPython(_create, _drop),
    ]
