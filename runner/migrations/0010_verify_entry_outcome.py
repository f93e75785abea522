"""Each entry's one verification outcome (submissions 0028) filled from its judged
verifications as runner/verdicts.py `entry_outcome_run` chooses it: the verdict (a not
reproduced or inconclusive one too, not only a reproduction or a shape), when its rerun
finished and its headline. An entry marked verified with no rerun keeps its mark."""

from django.db import migrations

ORDER = {"reproduced": 0, "shape_only": 1}
VERDICTS = ("reproduced", "shape_only", "not_reproduced", "inconclusive")


def fill_outcomes(apps, schema_editor):
    Run = apps.get_model("runner", "VerificationRun")
    Submission = apps.get_model("submissions", "Submission")
    judged = Run.objects.filter(
        kind="verification", status="succeeded", verdict__in=VERDICTS, finished_at__isnull=False
    )
    for entry in Submission.objects.filter(pk__in=judged.values("submission_id")):
        runs = list(judged.filter(submission_id=entry.pk))
        edited = entry.setup_edited_at
        found = [run for run in runs if edited is None or run.finished_at >= edited] or runs
        found.sort(key=lambda run: (run.finished_at, run.pk), reverse=True)
        run = min(found, key=lambda run: ORDER.get(run.verdict, 2))
        said = run.result.get("headline") if isinstance(run.result, dict) else ""
        Submission.objects.filter(pk=entry.pk).update(
            verification=run.verdict,
            verification_at=run.finished_at,
            verification_headline=said if isinstance(said, str) else "",
        )


class Migration(migrations.Migration):
    dependencies = [
        ("runner", "0009_fleet_hosts"),
        ("submissions", "0028_verify_verification_outcome"),
    ]

    operations = [migrations.RunPython(fill_outcomes, migrations.RunPython.noop)]
