"""A seeds' run keeps the memory limit its server ran in: PostgreSQL's, MyISAM's and Aria's
memory cgroup (the seed host's memory scaled 1/k), as read back, or why there was none."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("submissions", "0026_ranking_seq"),
    ]

    operations = [
        migrations.AddField(
            model_name="seedreproduction",
            name="memory_limit",
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name="seedreproduction",
            name="memory_limit_bytes",
            field=models.PositiveBigIntegerField(blank=True, null=True),
        ),
    ]
