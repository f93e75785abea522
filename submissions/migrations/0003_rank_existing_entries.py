import math

from django.db import migrations


def rank_existing_entries(apps, schema_editor):
    # Entries stored before ranks were persisted; the same pure rule the ranks use.
    from submissions.measures.ranking import Standing, competition_ranks

    Submission = apps.get_model("submissions", "Submission")
    Contest = apps.get_model("submissions", "Contest")
    for contest_id in Contest.objects.values_list("pk", flat=True):
        entries = Submission.objects.filter(contest_id=contest_id, eligible=True)
        ranks = competition_ranks(
            Standing(pk, seconds, rate)
            for pk, seconds, rate in entries.values_list("pk", "seconds_to_target", "terminal_rate")
            if seconds is not None and math.isfinite(seconds)
        )
        Submission.objects.bulk_update(
            [Submission(pk=pk, rank=rank) for pk, rank in ranks.items()], ["rank"], batch_size=1000
        )


class Migration(migrations.Migration):
    dependencies = [("submissions", "0002_leaderboard")]

    operations = [migrations.RunPython(rank_existing_entries, migrations.RunPython.noop)]
