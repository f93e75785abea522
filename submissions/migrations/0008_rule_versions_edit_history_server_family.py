"""Rule versions and background re-checks (issue 11, item 6), the history of what entrants
declared and their pending changes (item 7), and a server family + version with a normalised
engine in place of "MySQL version" (item 8). Existing entries get their family guessed from
what they wrote and their engine normalised; each contest gets its rules as v1 and, when it
has entries, a queued re-check under them (the sweep sends it): their verdicts were made
before versions were kept, so they are judged again rather than assumed current."""

import django.core.validators
import django.db.models.deletion
import django.utils.timezone
import simple_history.models
from django.conf import settings
from django.db import migrations, models
from django.utils import timezone

from submissions.setup.engines import guessed_family, normalised_engine
from submissions.contests.rule_changes import RULE_FIELDS, snapshot_of


def families_engines_and_first_versions(apps, schema_editor):
    Submission = apps.get_model("submissions", "Submission")
    Contest = apps.get_model("submissions", "Contest")
    RuleVersion = apps.get_model("submissions", "RuleVersion")
    Recheck = apps.get_model("submissions", "Recheck")
    for entry in Submission.objects.only("server_version", "storage_engine").iterator():
        entry.server_family = guessed_family(entry.server_version, entry.storage_engine)
        entry.engine = normalised_engine(entry.storage_engine, entry.server_family)
        entry.save(update_fields=["server_family", "engine"])
    for contest in Contest.objects.all():
        # The historical model lacks the rule fields added later (report_every_seconds, 0028):
        # a snapshot reads them as unset.
        snapshot = snapshot_of(
            {name: getattr(contest, name) for name in RULE_FIELDS if hasattr(contest, name)}
        )
        version = RuleVersion.objects.create(contest=contest, number=1, rules=snapshot)
        total = Submission.objects.filter(contest=contest).count()
        if total:
            Recheck.objects.create(
                rule_version=version, contest=contest, total=total, queued_at=timezone.now()
            )


class Migration(migrations.Migration):
    dependencies = [
        ("submissions", "0007_figures_measured_and_demo"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="HistoricalSubmission",
            fields=[
                (
                    "id",
                    models.BigIntegerField(
                        auto_created=True, blank=True, db_index=True, verbose_name="ID"
                    ),
                ),
                ("submitted_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("entrant_name", models.CharField(max_length=200)),
                ("email", models.EmailField(max_length=254)),
                (
                    "publish",
                    models.BooleanField(
                        default=False,
                        help_text="Show my name with my result. Otherwise: 'Anonymous entrant'.",
                    ),
                ),
                ("cpu_model", models.CharField(max_length=200)),
                (
                    "sockets",
                    models.PositiveSmallIntegerField(
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(64),
                        ]
                    ),
                ),
                (
                    "cores",
                    models.PositiveSmallIntegerField(
                        help_text="Cores in total.",
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(4096),
                        ],
                    ),
                ),
                (
                    "cpu_ghz",
                    models.FloatField(
                        validators=[
                            django.core.validators.MinValueValidator(0.1),
                            django.core.validators.MaxValueValidator(10.0),
                        ],
                        verbose_name="CPU GHz",
                    ),
                ),
                (
                    "memory_gb",
                    models.FloatField(
                        validators=[
                            django.core.validators.MinValueValidator(0.01),
                            django.core.validators.MaxValueValidator(1048576),
                        ],
                        verbose_name="memory (GB)",
                    ),
                ),
                (
                    "drives",
                    models.PositiveSmallIntegerField(
                        validators=[
                            django.core.validators.MinValueValidator(0),
                            django.core.validators.MaxValueValidator(1024),
                        ]
                    ),
                ),
                (
                    "drive_kind",
                    models.CharField(
                        choices=[("hdd", "HDD"), ("ssd", "SSD"), ("nvme", "NVMe")], max_length=10
                    ),
                ),
                (
                    "raid_level",
                    models.CharField(
                        blank=True, help_text="e.g. RAID 5 on 6 drives; empty: none.", max_length=40
                    ),
                ),
                ("direct_attached", models.BooleanField(default=True)),
                ("os", models.CharField(max_length=200, verbose_name="OS and version")),
                (
                    "server_family",
                    models.CharField(
                        choices=[
                            ("mysql", "MySQL"),
                            ("mariadb", "MariaDB"),
                            ("percona", "Percona Server"),
                            ("postgresql", "PostgreSQL"),
                            ("sqlite", "SQLite"),
                            ("other", "Other"),
                        ],
                        default="mysql",
                        max_length=20,
                        verbose_name="database server",
                    ),
                ),
                (
                    "server_version",
                    models.CharField(
                        help_text="As the server reports it, e.g. 5.1.25-rc.",
                        max_length=100,
                        verbose_name="server version",
                    ),
                ),
                (
                    "storage_engine",
                    models.CharField(
                        help_text="As you call it, e.g. InnoDB plugin 1.0.1.", max_length=100
                    ),
                ),
                ("storage_engine_version", models.CharField(blank=True, max_length=100)),
                ("solution_description", models.TextField(help_text="Markdown.", max_length=50000)),
                (
                    "server_config",
                    models.TextField(
                        blank=True,
                        help_text="my.cnf, optional.",
                        max_length=200000,
                        verbose_name="server configuration",
                    ),
                ),
                ("log", models.TextField(blank=True, max_length=300)),
                (
                    "log_name",
                    models.CharField(
                        blank=True,
                        help_text="The file name as sent, for display only.",
                        max_length=255,
                    ),
                ),
                ("log_sha256", models.CharField(blank=True, max_length=64)),
                ("log_size", models.PositiveBigIntegerField(default=0)),
                ("track_declared", models.JSONField(blank=True, default=dict)),
                ("history_id", models.AutoField(primary_key=True, serialize=False)),
                ("history_date", models.DateTimeField(db_index=True)),
                ("history_change_reason", models.CharField(max_length=100, null=True)),
                (
                    "history_type",
                    models.CharField(
                        choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")], max_length=1
                    ),
                ),
            ],
            options={
                "verbose_name": "historical submission",
                "verbose_name_plural": "historical submissions",
                "ordering": ("-history_date", "-history_id"),
                "get_latest_by": ("history_date", "history_id"),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name="PendingChange",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "declared",
                    models.JSONField(help_text="The whole declaration as the entrant sent it."),
                ),
                (
                    "changes",
                    models.JSONField(default=list, help_text='e.g. ["memory (GB): 16 -> 32"]'),
                ),
                (
                    "effects",
                    models.JSONField(
                        default=list, help_text="The figures and verdicts it changes."
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Waiting for an organizer"),
                            ("approved", "Approved"),
                            ("rejected", "Rejected"),
                            ("superseded", "Replaced by a later change"),
                        ],
                        default="pending",
                        max_length=20,
                    ),
                ),
                ("requested_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("decided_at", models.DateTimeField(blank=True, null=True)),
            ],
            options={
                "ordering": ["-requested_at"],
            },
        ),
        migrations.CreateModel(
            name="Recheck",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("queued", "Queued"),
                            ("running", "Running"),
                            ("done", "Done"),
                            ("superseded", "Superseded by newer rules"),
                            ("failed", "Failed"),
                        ],
                        db_index=True,
                        default="queued",
                        max_length=20,
                    ),
                ),
                ("queued_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("heartbeat_at", models.DateTimeField(blank=True, null=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                (
                    "sent_count",
                    models.PositiveIntegerField(default=0, help_text="Times sent to the broker."),
                ),
                ("total", models.PositiveIntegerField(default=0)),
                ("checked", models.PositiveIntegerField(default=0)),
                ("unreadable", models.PositiveIntegerField(default=0)),
                ("message", models.CharField(blank=True, max_length=500)),
            ],
            options={
                "ordering": ["-queued_at"],
            },
        ),
        migrations.CreateModel(
            name="RuleVersion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveIntegerField()),
                ("rules", models.JSONField()),
                (
                    "changes",
                    models.JSONField(
                        blank=True, default=list, help_text='e.g. ["memory cap 16 -> 32 GB"]'
                    ),
                ),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
            ],
            options={
                "ordering": ["contest", "-number"],
            },
        ),
        migrations.RemoveIndex(
            model_name="submission",
            name="contest_engines_idx",
        ),
        migrations.RemoveIndex(
            model_name="submission",
            name="leaderboard_idx",
        ),
        migrations.RenameField(
            model_name="submission",
            old_name="mysql_version",
            new_name="server_version",
        ),
        migrations.AddField(
            model_name="submission",
            name="edited_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="submission",
            name="engine",
            field=models.CharField(blank=True, max_length=40),
        ),
        migrations.AddField(
            model_name="submission",
            name="server_family",
            field=models.CharField(
                choices=[
                    ("mysql", "MySQL"),
                    ("mariadb", "MariaDB"),
                    ("percona", "Percona Server"),
                    ("postgresql", "PostgreSQL"),
                    ("sqlite", "SQLite"),
                    ("other", "Other"),
                ],
                default="mysql",
                max_length=20,
                verbose_name="database server",
            ),
        ),
        migrations.AlterField(
            model_name="submission",
            name="server_version",
            field=models.CharField(
                help_text="As the server reports it, e.g. 5.1.25-rc.",
                max_length=100,
                verbose_name="server version",
            ),
        ),
        migrations.AlterField(
            model_name="submission",
            name="storage_engine",
            field=models.CharField(
                help_text="As you call it, e.g. InnoDB plugin 1.0.1.", max_length=100
            ),
        ),
        migrations.AddField(
            model_name="historicalsubmission",
            name="contest",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                null=True,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                to="submissions.contest",
            ),
        ),
        migrations.AddField(
            model_name="historicalsubmission",
            name="history_user",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="historicalsubmission",
            name="owner",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                null=True,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="pendingchange",
            name="decided_by",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="pendingchange",
            name="requested_by",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="pendingchange",
            name="submission",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="pending_changes",
                to="submissions.submission",
            ),
        ),
        migrations.AddField(
            model_name="recheck",
            name="contest",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="rechecks",
                to="submissions.contest",
            ),
        ),
        migrations.AddField(
            model_name="ruleversion",
            name="contest",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="rule_versions",
                to="submissions.contest",
            ),
        ),
        migrations.AddField(
            model_name="ruleversion",
            name="created_by",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="recheck",
            name="rule_version",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="rechecks",
                to="submissions.ruleversion",
            ),
        ),
        migrations.AddField(
            model_name="submission",
            name="rules_version",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="submissions.ruleversion",
            ),
        ),
        migrations.AddIndex(
            model_name="submission",
            index=models.Index(
                fields=["contest", "rank", "id"],
                include=(
                    "seconds_to_target",
                    "terminal_rate",
                    "average_rate",
                    "verified",
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
                ),
                name="leaderboard_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="submission",
            index=models.Index(fields=["contest", "engine"], name="contest_engines_idx"),
        ),
        migrations.AddConstraint(
            model_name="pendingchange",
            constraint=models.UniqueConstraint(
                condition=models.Q(("status", "pending")),
                fields=("submission",),
                name="one_pending_change_per_entry",
            ),
        ),
        migrations.AddConstraint(
            model_name="ruleversion",
            constraint=models.UniqueConstraint(
                fields=("contest", "number"), name="one_rule_version_number"
            ),
        ),
        migrations.RunPython(families_engines_and_first_versions, migrations.RunPython.noop),
    ]
