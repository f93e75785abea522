"""Each entry carries the number of its last ranking change, from one sequence: set when it is
inserted and again, by a trigger, whenever a column a ranking compares (or its contest or
eligibility) changes, whatever made the change. A process that keeps a contest's ranking keys
(board/kept_ranks.py) then catches up with a change by reading the entries whose number is
above the last it read (an index on contest and number), instead of every ranked entry again.
The column is PostgreSQL's alone, as the tally is (SQLite keeps no ranking keys): the models do
not know it, so no form or copy of an entry ever sets it."""

from django.db import migrations

CREATE = """
CREATE SEQUENCE submissions_submission_ranking_seq;
ALTER TABLE submissions_submission
    ADD COLUMN ranking_seq bigint NOT NULL
    DEFAULT nextval('submissions_submission_ranking_seq');
ALTER SEQUENCE submissions_submission_ranking_seq OWNED BY submissions_submission.ranking_seq;
CREATE INDEX submissions_submission_ranking_seq_idx
    ON submissions_submission (contest_id, ranking_seq);

CREATE FUNCTION iibench_ranking_changed() RETURNS trigger AS $$
BEGIN
    NEW.ranking_seq := nextval('submissions_submission_ranking_seq');
    RETURN NEW;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER iibench_ranking_changed
    BEFORE UPDATE OF contest_id, eligible, seconds_to_target, track_metric, track_class,
        estimated, terminal_rate
    ON submissions_submission FOR EACH ROW
    WHEN (OLD.contest_id IS DISTINCT FROM NEW.contest_id
        OR OLD.eligible IS DISTINCT FROM NEW.eligible
        OR OLD.seconds_to_target IS DISTINCT FROM NEW.seconds_to_target
        OR OLD.track_metric IS DISTINCT FROM NEW.track_metric
        OR OLD.track_class IS DISTINCT FROM NEW.track_class
        OR OLD.estimated IS DISTINCT FROM NEW.estimated
        OR OLD.terminal_rate IS DISTINCT FROM NEW.terminal_rate)
    EXECUTE FUNCTION iibench_ranking_changed();
"""

DROP = """
DROP TRIGGER IF EXISTS iibench_ranking_changed ON submissions_submission;
DROP FUNCTION IF EXISTS iibench_ranking_changed();
ALTER TABLE submissions_submission DROP COLUMN IF EXISTS ranking_seq;
"""


def _on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("submissions", "0025_tally_ranking_sum"),
    ]

    operations = [
        migrations.RunPython(_on_postgresql(CREATE), _on_postgresql(DROP)),
    ]
