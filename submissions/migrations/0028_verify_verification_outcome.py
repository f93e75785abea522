"""The verification outcome stored once (issue 41): `verified` (a boolean) and `verification`
(the verdict the board showed) said the same thing twice; `verification` now holds the verdict,
with when its rerun finished and its headline (the runner's migration fills those from its
runs), and `verified` is read from it. `setup_edited_at` is when the machine, server, engine
or settings were last edited (issue 40): a verification before it no longer verifies. The
boolean is dropped by the next migration: PostgreSQL alters no table with the ranking triggers'
events of these updates pending in the same transaction."""

from django.db import migrations, models

SETUP_FIELDS = (
    "cpu_model", "sockets", "cores", "cpu_ghz", "memory_gb", "drives", "drive_kind",
    "raid_level", "direct_attached", "os", "server_family", "server_version", "storage_engine",
    "storage_engine_version", "server_config",
)  # fmt: skip


def keep_verified(apps, schema_editor):
    """Every verified entry keeps its reproduction in the one field left."""
    Submission = apps.get_model("submissions", "Submission")
    Submission.objects.filter(verified=True).update(verification="reproduced")


def last_setup_edits(apps, schema_editor):
    """An entry edited before this migration: the last of its kept versions whose machine,
    server, engine or settings differ from the version before (its history), so a verification
    older than that edit is said to be before it."""
    Submission = apps.get_model("submissions", "Submission")
    History = apps.get_model("submissions", "HistoricalSubmission")
    for pk in Submission.objects.filter(edited_at__isnull=False).values_list("pk", flat=True):
        versions = History.objects.filter(id=pk).order_by("history_date", "history_id")
        before, edited = None, None
        for version in versions.values("history_date", *SETUP_FIELDS):
            setup = {name: version[name] for name in SETUP_FIELDS}
            if before is not None and setup != before:
                edited = version["history_date"]
            before = setup
        if edited is not None:
            Submission.objects.filter(pk=pk).update(setup_edited_at=edited)


class Migration(migrations.Migration):
    dependencies = [
        ("submissions", "0027_seedreproduction_memory_limit"),
    ]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="setup_edited_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="submission",
            name="verification_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="submission",
            name="verification_headline",
            field=models.TextField(blank=True),
        ),
        migrations.AlterField(
            model_name="submission",
            name="verification",
            field=models.CharField(
                blank=True,
                choices=[
                    ("reproduced", "Reproduced"),
                    ("shape_only", "Shape only"),
                    ("not_reproduced", "Not reproduced"),
                    ("inconclusive", "Inconclusive"),
                ],
                max_length=16,
            ),
        ),
        migrations.RunPython(keep_verified, migrations.RunPython.noop),
        migrations.RunPython(last_setup_edits, migrations.RunPython.noop),
    ]
