"""`verified` dropped: the outcome is stored once, in `verification` (0028 copied every mark
into it); the board's covering index reads the outcome's columns instead."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("submissions", "0028_verify_verification_outcome"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="submission", name="leaderboard_idx"),
        migrations.RemoveField(model_name="submission", name="verified"),
        migrations.AddIndex(
            model_name="submission",
            index=models.Index(
                fields=["contest", "id"],
                include=(
                    "seconds_to_target",
                    "terminal_rate",
                    "average_rate",
                    "verification",
                    "drive_kind",
                    "storage_engine",
                    "engine",
                    "cores",
                    "memory_gb",
                    "publish",
                    "entrant_name",
                    "track_metric",
                    "track_class",
                    "elapsed_seconds",
                    "estimated",
                    "demo",
                    "db_size_bytes",
                    "write_kb_per_row",
                    "server_cpu_us_per_row",
                    "eligible",
                    "verification_at",
                    "setup_edited_at",
                ),
                name="leaderboard_idx",
            ),
        ),
    ]
