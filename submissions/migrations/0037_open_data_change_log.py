"""The open dataset's change log (OpenDataChange, issue 44): triggers append the id of every
entry inserted, updated or deleted, and of every entry whose series or stream is, whatever
code or statement made the change (a bulk UPDATE or a cascade included); a stream not yet an
entry (no submission) logs nothing. A build reads the log
instead of a hash of every entry (submissions/opendata/build.py). On PostgreSQL the entries' and
series' triggers run once per statement over its rows (transition tables); on SQLite once per
row; a stream's, once per row and only when its entry or its witnessed flag changes."""

from django.db import migrations, models

LOG = "submissions_opendatachange"
# (table, the column holding the entry's id)
LOGGED = (
    ("submissions_submission", "id"),
    ("submissions_sampleseries", "submission_id"),
)
# A stream's row is written at every batch it appends: only what the dataset reads of it (its
# entry, and whether it was witnessed) is logged, by a row trigger whose WHEN skips the rest
# (an append that SETs neither column does not even fire it).
STREAM = "live_liverun"
STREAM_MOVED = (
    "OLD.submission_id IS DISTINCT FROM NEW.submission_id "
    "OR OLD.witnessed IS DISTINCT FROM NEW.witnessed"
)

POSTGRESQL_FUNCTION = f"""
CREATE FUNCTION iibench_open_data_changed() RETURNS trigger AS $$
BEGIN
    IF TG_OP <> 'DELETE' THEN
        EXECUTE format(
            'INSERT INTO {LOG} (entry_id) SELECT %I FROM added WHERE %I IS NOT NULL',
            TG_ARGV[0], TG_ARGV[0]);
    END IF;
    IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND TG_ARGV[0] <> 'id') THEN
        EXECUTE format(
            'INSERT INTO {LOG} (entry_id) SELECT %I FROM removed WHERE %I IS NOT NULL',
            TG_ARGV[0], TG_ARGV[0]);
    END IF;
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
"""  # noqa: S608  # nosec B608 (names are the module's constants)


POSTGRESQL_STREAM = f"""
CREATE FUNCTION iibench_open_data_stream_changed() RETURNS trigger AS $$
BEGIN
    IF TG_OP <> 'DELETE' AND NEW.submission_id IS NOT NULL THEN
        INSERT INTO {LOG} (entry_id) VALUES (NEW.submission_id);
    END IF;
    IF TG_OP <> 'INSERT' AND OLD.submission_id IS NOT NULL THEN
        INSERT INTO {LOG} (entry_id) VALUES (OLD.submission_id);
    END IF;
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
CREATE TRIGGER iibench_open_data_{STREAM}_i AFTER INSERT ON {STREAM} FOR EACH ROW
    WHEN (NEW.submission_id IS NOT NULL) EXECUTE FUNCTION iibench_open_data_stream_changed();
CREATE TRIGGER iibench_open_data_{STREAM}_u AFTER UPDATE OF submission_id, witnessed ON {STREAM}
    FOR EACH ROW WHEN ({STREAM_MOVED}) EXECUTE FUNCTION iibench_open_data_stream_changed();
CREATE TRIGGER iibench_open_data_{STREAM}_d AFTER DELETE ON {STREAM} FOR EACH ROW
    WHEN (OLD.submission_id IS NOT NULL) EXECUTE FUNCTION iibench_open_data_stream_changed();
"""  # noqa: S608  # nosec B608 (names are the module's constants)


def _postgresql_triggers(table: str, column: str) -> str:
    name = f"iibench_open_data_{table}"
    return f"""
CREATE TRIGGER {name}_i AFTER INSERT ON {table} REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION iibench_open_data_changed('{column}');
CREATE TRIGGER {name}_u AFTER UPDATE ON {table}
    REFERENCING OLD TABLE AS removed NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION iibench_open_data_changed('{column}');
CREATE TRIGGER {name}_d AFTER DELETE ON {table} REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION iibench_open_data_changed('{column}');
"""


def _sqlite_triggers(table: str, column: str) -> list[str]:
    name = f"iibench_open_data_{table}"

    def insert(row: str) -> str:  # a stream not yet an entry has no entry id: nothing logged
        return f"INSERT INTO {LOG} (entry_id) SELECT {row}.{column} WHERE {row}.{column} IS NOT NULL;"

    return [
        f"CREATE TRIGGER {name}_i AFTER INSERT ON {table} BEGIN {insert('NEW')} END",
        f"CREATE TRIGGER {name}_u AFTER UPDATE ON {table} BEGIN {insert('NEW')} {insert('OLD')} END",
        f"CREATE TRIGGER {name}_d AFTER DELETE ON {table} BEGIN {insert('OLD')} END",
    ]


def _sqlite_stream_triggers() -> list[str]:
    name = f"iibench_open_data_{STREAM}"
    column = "submission_id"

    def insert(row: str) -> str:
        return f"INSERT INTO {LOG} (entry_id) SELECT {row}.{column} WHERE {row}.{column} IS NOT NULL;"

    return [
        f"CREATE TRIGGER {name}_i AFTER INSERT ON {STREAM} WHEN NEW.{column} IS NOT NULL "
        f"BEGIN {insert('NEW')} END",
        f"CREATE TRIGGER {name}_u AFTER UPDATE OF submission_id, witnessed ON {STREAM} "
        f"WHEN {STREAM_MOVED} BEGIN {insert('NEW')} {insert('OLD')} END",
        f"CREATE TRIGGER {name}_d AFTER DELETE ON {STREAM} WHEN OLD.{column} IS NOT NULL "
        f"BEGIN {insert('OLD')} END",
    ]


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(POSTGRESQL_FUNCTION, None)  # its %I is format()'s, not a parameter
        for table, column in LOGGED:
            schema_editor.execute(_postgresql_triggers(table, column))
        schema_editor.execute(POSTGRESQL_STREAM, None)
    else:
        for table, column in LOGGED:
            for statement in _sqlite_triggers(table, column):
                schema_editor.execute(statement)
        for statement in _sqlite_stream_triggers():
            schema_editor.execute(statement)


def drop(apps, schema_editor):
    postgresql = schema_editor.connection.vendor == "postgresql"
    for table in (*(table for table, _ in LOGGED), STREAM):
        for suffix in ("i", "u", "d"):
            on = f" ON {table}" if postgresql else ""
            schema_editor.execute(f"DROP TRIGGER IF EXISTS iibench_open_data_{table}_{suffix}{on}")
    if postgresql:
        schema_editor.execute("DROP FUNCTION IF EXISTS iibench_open_data_changed()")
        schema_editor.execute("DROP FUNCTION IF EXISTS iibench_open_data_stream_changed()")


class Migration(migrations.Migration):
    dependencies = [
        ("submissions", "0036_engine_rank_order_index"),
        ("live", "0004_live_run_indexes_in_the_unique_ones"),
    ]

    operations = [
        migrations.CreateModel(
            name="OpenDataChange",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("entry_id", models.BigIntegerField()),
            ],
        ),
        migrations.RunPython(create, drop),
    ]
