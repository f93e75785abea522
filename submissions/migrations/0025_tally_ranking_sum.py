"""The board tally keeps, beside each count, a sum of a hash of what ranks its entries (their
class and every column a ranking compares): a process that keeps a contest's ranking keys in
memory (board/kept_ranks.py) checks them against the count and this sum, read with the page,
and never serves ranks from keys the table no longer holds. The triggers of 0023 now also
move the sum, and the update trigger fires when a ranking column changes too (one tally row
written, as before: never another entry's row). Nothing on SQLite."""

from django.db import migrations, models

TALLY_KEY = "contest_id, eligible, has_time, has_metric"
# What a ranking may compare (RANKED_COLUMNS in board/kept_ranks.py), hashed as one row.
RANKING_HASH = (
    "hashtext(ROW({row}.track_class, {row}.estimated, {row}.seconds_to_target, "
    "{row}.terminal_rate, {row}.track_metric)::text)::bigint"
)
# Names only, from this file: nothing from outside.
GROUPED = f"""
    SELECT contest_id, eligible, seconds_to_target IS NOT NULL AS has_time,
           track_metric IS NOT NULL AS has_metric, count(*) AS entries,
           sum({RANKING_HASH.format(row="{rows}")}) AS ranking_sum
    FROM {{rows}} GROUP BY 1, 2, 3, 4
"""  # noqa: S608

CREATE = f"""
CREATE OR REPLACE FUNCTION iibench_tally_added() RETURNS trigger AS $$
BEGIN
    INSERT INTO submissions_boardtally ({TALLY_KEY}, entries, ranking_sum)
    {GROUPED.format(rows="added")}
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
    FROM ({GROUPED.format(rows="removed")}) AS removed
    WHERE (tally.contest_id, tally.eligible, tally.has_time, tally.has_metric)
        = (removed.contest_id, removed.eligible, removed.has_time, removed.has_metric);
    RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE FUNCTION iibench_tally_shift(
    contest bigint, is_eligible boolean, timed boolean, metric boolean, delta bigint,
    moved bigint
) RETURNS void AS $$
    INSERT INTO submissions_boardtally ({TALLY_KEY}, entries, ranking_sum)
    VALUES (contest, is_eligible, timed, metric, delta, moved)
    ON CONFLICT ({TALLY_KEY}) DO UPDATE SET entries = submissions_boardtally.entries + delta,
        ranking_sum = submissions_boardtally.ranking_sum + moved;
$$ LANGUAGE sql;

CREATE OR REPLACE FUNCTION iibench_tally_moved() RETURNS trigger AS $$
DECLARE
    old_key RECORD;
    new_key RECORD;
    old_hash bigint := {RANKING_HASH.format(row="OLD")};
    new_hash bigint := {RANKING_HASH.format(row="NEW")};
BEGIN
    SELECT OLD.contest_id AS contest_id, OLD.eligible AS eligible,
           OLD.seconds_to_target IS NOT NULL AS has_time,
           OLD.track_metric IS NOT NULL AS has_metric INTO old_key;
    SELECT NEW.contest_id AS contest_id, NEW.eligible AS eligible,
           NEW.seconds_to_target IS NOT NULL AS has_time,
           NEW.track_metric IS NOT NULL AS has_metric INTO new_key;
    IF (old_key.contest_id, old_key.eligible, old_key.has_time, old_key.has_metric)
        = (new_key.contest_id, new_key.eligible, new_key.has_time, new_key.has_metric) THEN
        -- A ranking value edited within the same tally row: its sum only.
        PERFORM iibench_tally_shift(new_key.contest_id, new_key.eligible, new_key.has_time,
                                    new_key.has_metric, 0, new_hash - old_hash);
    -- Two tally rows, always the smaller key first: two entries moving opposite ways at
    -- once never wait on each other's row in turn.
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
    AFTER UPDATE OF contest_id, eligible, seconds_to_target, track_metric, track_class,
        estimated, terminal_rate
    ON submissions_submission FOR EACH ROW
    WHEN (OLD.contest_id IS DISTINCT FROM NEW.contest_id
        OR OLD.eligible IS DISTINCT FROM NEW.eligible
        OR OLD.seconds_to_target IS DISTINCT FROM NEW.seconds_to_target
        OR OLD.track_metric IS DISTINCT FROM NEW.track_metric
        OR OLD.track_class IS DISTINCT FROM NEW.track_class
        OR OLD.estimated IS DISTINCT FROM NEW.estimated
        OR OLD.terminal_rate IS DISTINCT FROM NEW.terminal_rate)
    EXECUTE FUNCTION iibench_tally_moved();

DELETE FROM submissions_boardtally;
INSERT INTO submissions_boardtally ({TALLY_KEY}, entries, ranking_sum)
{GROUPED.format(rows="submissions_submission")};
"""  # noqa: S608

# Back to 0023's triggers (its functions, which do not move the sum, are made again by
# migrating 0023 forwards; here the update trigger is put back to fire as it did).
DROP = """
DROP TRIGGER IF EXISTS iibench_tally_updated ON submissions_submission;
DROP FUNCTION IF EXISTS iibench_tally_shift(bigint, boolean, boolean, boolean, bigint, bigint);
CREATE OR REPLACE FUNCTION iibench_tally_added() RETURNS trigger AS $$
BEGIN
    INSERT INTO submissions_boardtally (contest_id, eligible, has_time, has_metric, entries)
    SELECT contest_id, eligible, seconds_to_target IS NOT NULL,
           track_metric IS NOT NULL, count(*) FROM added GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (contest_id, eligible, has_time, has_metric)
    DO UPDATE SET entries = submissions_boardtally.entries + EXCLUDED.entries;
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
CREATE OR REPLACE FUNCTION iibench_tally_removed() RETURNS trigger AS $$
BEGIN
    UPDATE submissions_boardtally AS tally SET entries = tally.entries - removed.entries
    FROM (SELECT contest_id, eligible, seconds_to_target IS NOT NULL AS has_time,
                 track_metric IS NOT NULL AS has_metric, count(*) AS entries
          FROM removed GROUP BY 1, 2, 3, 4) AS removed
    WHERE (tally.contest_id, tally.eligible, tally.has_time, tally.has_metric)
        = (removed.contest_id, removed.eligible, removed.has_time, removed.has_metric);
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
CREATE OR REPLACE FUNCTION iibench_tally_moved() RETURNS trigger AS $$
BEGIN
    PERFORM iibench_tally_add(OLD.contest_id, OLD.eligible, OLD.seconds_to_target IS NOT NULL,
                              OLD.track_metric IS NOT NULL, -1);
    PERFORM iibench_tally_add(NEW.contest_id, NEW.eligible, NEW.seconds_to_target IS NOT NULL,
                              NEW.track_metric IS NOT NULL, 1);
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
CREATE TRIGGER iibench_tally_updated
    AFTER UPDATE OF contest_id, eligible, seconds_to_target, track_metric
    ON submissions_submission FOR EACH ROW
    WHEN (OLD.contest_id IS DISTINCT FROM NEW.contest_id
        OR OLD.eligible IS DISTINCT FROM NEW.eligible
        OR (OLD.seconds_to_target IS NULL) <> (NEW.seconds_to_target IS NULL)
        OR (OLD.track_metric IS NULL) <> (NEW.track_metric IS NULL))
    EXECUTE FUNCTION iibench_tally_moved();
"""


def _on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("submissions", "0024_seed_reproduction"),
    ]

    operations = [
        migrations.AddField(
            model_name="boardtally",
            name="ranking_sum",
            field=models.BigIntegerField(default=0),
        ),
        migrations.RunPython(_on_postgresql(CREATE), _on_postgresql(DROP)),
    ]
