"""The open dataset's change log (OpenDataChange, issue 44): triggers append the id of every
entry inserted, updated or deleted, and of every entry whose series or stream is, whatever
code or statement made the change (a bulk UPDATE or a cascade included). A build reads the log
instead of a hash of every entry (submissions/opendata/build.py). On PostgreSQL the triggers run
once per statement over its rows (transition tables); on SQLite once per row."""

from django.db import migrations, models

LOG = "submissions_opendatachange"
# (table, the column holding the entry's id)
LOGGED = (
    ("submissions_submission", "id"),
    ("submissions_sampleseries", "submission_id"),
    ("live_liverun", "submission_id"),
)

POSTGRESQL_FUNCTION = f"""
CREATE FUNCTION iibench_open_data_changed() RETURNS trigger AS $$
BEGIN
    IF TG_OP <> 'DELETE' THEN
        EXECUTE format('INSERT INTO {LOG} (entry_id) SELECT %I FROM added', TG_ARGV[0]);
    END IF;
    IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND TG_ARGV[0] <> 'id') THEN
        EXECUTE format('INSERT INTO {LOG} (entry_id) SELECT %I FROM removed', TG_ARGV[0]);
    END IF;
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
"""


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
    insert = f"INSERT INTO {LOG} (entry_id) VALUES"
    return [
        f"CREATE TRIGGER {name}_i AFTER INSERT ON {table} BEGIN {insert} (NEW.{column}); END",
        f"CREATE TRIGGER {name}_u AFTER UPDATE ON {table} BEGIN {insert} (NEW.{column}); "
        f"{insert} (OLD.{column}); END",
        f"CREATE TRIGGER {name}_d AFTER DELETE ON {table} BEGIN {insert} (OLD.{column}); END",
    ]


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(POSTGRESQL_FUNCTION, None)  # its %I is format()'s, not a parameter
        for table, column in LOGGED:
            schema_editor.execute(_postgresql_triggers(table, column))
    else:
        for table, column in LOGGED:
            for statement in _sqlite_triggers(table, column):
                schema_editor.execute(statement)


def drop(apps, schema_editor):
    postgresql = schema_editor.connection.vendor == "postgresql"
    for table, _ in LOGGED:
        for suffix in ("i", "u", "d"):
            on = f" ON {table}" if postgresql else ""
            schema_editor.execute(f"DROP TRIGGER IF EXISTS iibench_open_data_{table}_{suffix}{on}")
    if postgresql:
        schema_editor.execute("DROP FUNCTION IF EXISTS iibench_open_data_changed()")


class Migration(migrations.Migration):
    dependencies = [
        ("submissions", "0035_million_engine_month_best"),
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
