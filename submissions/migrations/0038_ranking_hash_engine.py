"""The entry page's placement among its engine's ranked entries read from the ranking keys each
process keeps (board/kept_ranks.py, issue 44), not counted: the kept keys hold each entry's
engine too, so the tally's ranking hash (0025) now covers the entry's `engine` beside its class
and ranking values, and the ranking change number (0026) moves when the engine changes. An
entry moved to another engine then moves its tally row's sum (a page's check sees the keys
behind) and takes a new change number (the keys catch up with it alone), as a change of rank
does. The tally's sums are computed again from the entries with the new hash (one scan of the
table). Nothing on SQLite (no tally)."""

from django.db import migrations

TALLY_KEY = "contest_id, eligible, has_time, has_metric"
# What the hash covers, before (0025) and now: the columns a ranking compares, and the engine.
BEFORE = ("track_class", "estimated", "seconds_to_target", "terminal_rate", "track_metric")
NOW = (*BEFORE, "engine")


def _hash(columns: tuple[str, ...], row: str) -> str:
    listed = ", ".join(f"{row}.{column}" for column in columns)
    return f"hashtext(ROW({listed})::text)::bigint"


def _statements(columns: tuple[str, ...]) -> str:
    """0025's tally functions and triggers and 0026's change-number trigger, hashing and
    watching `columns` (names from this file only)."""
    grouped = f"""
        SELECT contest_id, eligible, seconds_to_target IS NOT NULL AS has_time,
               track_metric IS NOT NULL AS has_metric, count(*) AS entries,
               sum({_hash(columns, "{rows}")}) AS ranking_sum
        FROM {{rows}} GROUP BY 1, 2, 3, 4
    """  # noqa: S608
    watched = ("contest_id", "eligible", *columns)
    update_of = ", ".join(watched)
    moved = "\n        OR ".join(
        f"OLD.{column} IS DISTINCT FROM NEW.{column}" for column in watched
    )
    return f"""
CREATE OR REPLACE FUNCTION iibench_tally_added() RETURNS trigger AS $$
BEGIN
    INSERT INTO submissions_boardtally ({TALLY_KEY}, entries, ranking_sum)
    {grouped.format(rows="added")}
    ORDER BY 1, 2, 3, 4
    ON CONFLICT ({TALLY_KEY})
    DO UPDATE SET entries = submissions_boardtally.entries + EXCLUDED.entries,
                  ranking_sum = submissions_boardtally.ranking_sum + EXCLUDED.ranking_sum;
    RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION iibench_tally_removed() RETURNS trigger AS $$
BEGIN
    UPDATE submissions_boardtally AS tally SET entries = tally.entries - removed.entries,
        ranking_sum = tally.ranking_sum - removed.ranking_sum
    FROM ({grouped.format(rows="removed")}) AS removed
    WHERE (tally.contest_id, tally.eligible, tally.has_time, tally.has_metric)
        = (removed.contest_id, removed.eligible, removed.has_time, removed.has_metric);
    RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION iibench_tally_moved() RETURNS trigger AS $$
DECLARE
    old_key RECORD;
    new_key RECORD;
    old_hash bigint := {_hash(columns, "OLD")};
    new_hash bigint := {_hash(columns, "NEW")};
BEGIN
    SELECT OLD.contest_id AS contest_id, OLD.eligible AS eligible,
           OLD.seconds_to_target IS NOT NULL AS has_time,
           OLD.track_metric IS NOT NULL AS has_metric INTO old_key;
    SELECT NEW.contest_id AS contest_id, NEW.eligible AS eligible,
           NEW.seconds_to_target IS NOT NULL AS has_time,
           NEW.track_metric IS NOT NULL AS has_metric INTO new_key;
    IF (old_key.contest_id, old_key.eligible, old_key.has_time, old_key.has_metric)
        = (new_key.contest_id, new_key.eligible, new_key.has_time, new_key.has_metric) THEN
        PERFORM iibench_tally_shift(new_key.contest_id, new_key.eligible, new_key.has_time,
                                    new_key.has_metric, 0, new_hash - old_hash);
    ELSIF (old_key.contest_id, old_key.eligible, old_key.has_time, old_key.has_metric)
        < (new_key.contest_id, new_key.eligible, new_key.has_time, new_key.has_metric) THEN
        PERFORM iibench_tally_shift(old_key.contest_id, old_key.eligible, old_key.has_time,
                                    old_key.has_metric, -1, -old_hash);
        PERFORM iibench_tally_shift(new_key.contest_id, new_key.eligible, new_key.has_time,
                                    new_key.has_metric, 1, new_hash);
    ELSE
        PERFORM iibench_tally_shift(new_key.contest_id, new_key.eligible, new_key.has_time,
                                    new_key.has_metric, 1, new_hash);
        PERFORM iibench_tally_shift(old_key.contest_id, old_key.eligible, old_key.has_time,
                                    old_key.has_metric, -1, -old_hash);
    END IF;
    RETURN NULL;
END
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS iibench_tally_updated ON submissions_submission;
CREATE TRIGGER iibench_tally_updated
    AFTER UPDATE OF {update_of}
    ON submissions_submission FOR EACH ROW
    WHEN ({moved})
    EXECUTE FUNCTION iibench_tally_moved();

DROP TRIGGER IF EXISTS iibench_ranking_changed ON submissions_submission;
CREATE TRIGGER iibench_ranking_changed
    BEFORE UPDATE OF {update_of}
    ON submissions_submission FOR EACH ROW
    WHEN ({moved})
    EXECUTE FUNCTION iibench_ranking_changed();

UPDATE submissions_boardtally AS tally SET ranking_sum = COALESCE(grouped.ranking_sum, 0)
FROM submissions_boardtally AS every
LEFT JOIN ({grouped.format(rows="submissions_submission")}) AS grouped
    ON (grouped.contest_id, grouped.eligible, grouped.has_time, grouped.has_metric)
        = (every.contest_id, every.eligible, every.has_time, every.has_metric)
WHERE tally.id = every.id;
"""  # noqa: S608


def _on_postgresql(columns: tuple[str, ...]):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(_statements(columns))

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("submissions", "0037_open_data_change_log"),
    ]

    operations = [
        migrations.RunPython(_on_postgresql(NOW), _on_postgresql(BEFORE)),
    ]
