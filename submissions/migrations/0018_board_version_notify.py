"""PostgreSQL tells every listening web process when a board's version may have moved on
(submissions/board/versions.py): a notification on `iibench_board` after a contest's board
version or slug changes, a contest is deleted, or the table is truncated (a test database's
flush). Sent at the change's commit. Nothing on SQLite, which has no notifications."""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION iibench_board_changed() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('iibench_board', '');
    RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER iibench_board_version_changed
    AFTER UPDATE ON submissions_contest FOR EACH ROW
    WHEN (OLD.board_version IS DISTINCT FROM NEW.board_version OR OLD.slug IS DISTINCT FROM NEW.slug)
    EXECUTE FUNCTION iibench_board_changed();
CREATE TRIGGER iibench_board_contest_deleted
    AFTER DELETE ON submissions_contest FOR EACH ROW
    EXECUTE FUNCTION iibench_board_changed();
CREATE TRIGGER iibench_board_contests_truncated
    AFTER TRUNCATE ON submissions_contest FOR EACH STATEMENT
    EXECUTE FUNCTION iibench_board_changed();
"""

DROP = """
DROP TRIGGER IF EXISTS iibench_board_version_changed ON submissions_contest;
DROP TRIGGER IF EXISTS iibench_board_contest_deleted ON submissions_contest;
DROP TRIGGER IF EXISTS iibench_board_contests_truncated ON submissions_contest;
DROP FUNCTION IF EXISTS iibench_board_changed();
"""


def _on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("submissions", "0017_track_rules_help")]

    operations = [migrations.RunPython(_on_postgresql(CREATE), _on_postgresql(DROP))]
