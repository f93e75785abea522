"""The entry page's placement among its engine's entries (contests/ranks.py `entry_placement`,
issue 44) counted from an index: the ranked entries of one contest and engine (by its
case-insensitive name, as `engine__iexact` compares it) in rank order, so both counts are an
index-only scan of that engine's entries instead of a read of their rows (20,000 TokuDB entries
of the 100,000-entry bench: 85-100 ms, 6.5 ms from this index, under a load of 7). `engine`
itself is included: PostgreSQL takes an index-only scan of an expression index only when the
column under the expression is in the index too. Still O(the engine's entries), not O(1).
PostgreSQL's alone (an expression index); SQLite counts as before."""

from django.db import migrations

CREATE = (
    "CREATE INDEX engine_placement_idx ON submissions_submission "
    "(contest_id, UPPER(engine::text), estimated, seconds_to_target, "
    "terminal_rate DESC NULLS LAST, id) INCLUDE (engine) "
    "WHERE eligible AND seconds_to_target IS NOT NULL"
)
DROP = "DROP INDEX IF EXISTS engine_placement_idx"


def _create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def _drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [
        ("submissions", "0036_engine_rank_order_index"),
    ]

    operations = [
        migrations.RunPython(_create, _drop),
    ]
