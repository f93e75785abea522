"""The verdict vocabulary of verified-means-verified, and the reruns already stored re-judged
under it (README "What a rerun's verdict means").

The stored reruns were judged by the old rule: any target, the first rows of the run at the
server's own memory, compared by speed. Under the new rules:
- a rerun on another server family or storage engine than the entry's is a `comparison`;
- a classic rerun on the same engine was a prefix of the run that never reached the memory
  cliff the claim was made past: `inconclusive`, since it cannot verify the claim;
- the other tracks' reruns were judged as they are now (their own figure, scaled); they stand.
Runs on another engine get the kind `comparison`. An entry is `verified` only when a rerun of it still says `reproduced`. The old verdict is kept
at the head of the message. Self-contained: it reads the targets from settings, no live code."""

from django.conf import settings
from django.db import migrations, models
from django.db.models import F

MARIADB_ENGINES = ("innodb", "myisam", "aria", "blackhole", "xtradb")


def _family(target_name: str) -> tuple[str, tuple[str, ...]]:
    target = getattr(settings, "RERUN_TARGETS", {}).get(target_name, {})
    server, url = target.get("server", ""), target.get("url", "")
    scheme = server or url.split(":", 1)[0].lower() or target_name
    engines = tuple(engine.lower() for engine in target.get("engines", MARIADB_ENGINES))
    if "postgres" in scheme or "postgres" in target_name:
        return "postgresql", ()
    if scheme in ("mysql", "mariadb") or "mariadb" in target_name:
        return "mariadb", engines or MARIADB_ENGINES
    return "sqlite", ()


def _same_engine(declared: str, target_name: str) -> bool:
    family, engines = _family(target_name)
    declared = declared.strip().lower()
    if family == "postgresql":
        return declared.startswith("postgres")
    return family == "mariadb" and declared in engines


def _rejudged(run, workload: str, declared_engine: str) -> tuple[str, str] | None:
    old = f"Judged before verification meant verified: {run.verdict.replace('_', ' ')}. "
    if not _same_engine(declared_engine, run.target):
        return "comparison", (
            f"{old}Re-judged: a comparison run ({run.target} target, the entry's engine is "
            f"{declared_engine or 'not stated'}): it compares the engines, never verifies the "
            f"claim. {run.message}"
        )
    if workload == "classic":
        return "inconclusive", (
            f"{old}Re-judged: inconclusive. This rerun was the run's first "
            f"{run.rows_target:,} rows at the server's own memory, not the run scaled: it cannot "
            f"reach the claim's memory cliff, so it cannot verify the claim. {run.message}"
        )
    return None


def rejudge(apps, schema_editor):
    VerificationRun = apps.get_model("runner", "VerificationRun")
    Submission = apps.get_model("submissions", "Submission")
    Contest = apps.get_model("submissions", "Contest")
    # Every stored run was asked for by rows alone; one on another engine was a comparison.
    for run in VerificationRun.objects.select_related("submission").iterator():
        submission = run.submission
        figures = submission.track_figures if isinstance(submission.track_figures, dict) else {}
        engine = str(figures.get("engine") or submission.storage_engine or "")
        if not _same_engine(engine, run.target):
            run.kind = "comparison"
            run.save(update_fields=["kind"])
    judged = VerificationRun.objects.filter(
        verdict__in=("reproduced", "not_reproduced")
    ).select_related("submission__contest")
    touched = set()
    for run in judged.iterator():
        submission = run.submission
        figures = submission.track_figures if isinstance(submission.track_figures, dict) else {}
        engine = str(figures.get("engine") or submission.storage_engine or "")
        change = _rejudged(run, submission.contest.workload, engine)
        if change:
            run.verdict, run.message = change
            run.save(update_fields=["verdict", "message"])
        touched.add(submission.pk)
    contests = set()
    stored = {field.name for field in Submission._meta.concrete_fields}
    for submission in Submission.objects.filter(pk__in=touched):
        reproduced = VerificationRun.objects.filter(
            submission=submission, verdict="reproduced"
        ).exists()
        marks = {"verification": "reproduced" if reproduced else ""}
        if "verified" in stored:  # the boolean, until submissions 0028 kept the outcome once
            marks["verified"] = reproduced
        if any(getattr(submission, name) != value for name, value in marks.items()):
            for name, value in marks.items():
                setattr(submission, name, value)
            submission.save(update_fields=list(marks))
            contests.add(submission.contest_id)
    Contest.objects.filter(pk__in=contests).update(board_version=F("board_version") + 1)


class Migration(migrations.Migration):
    dependencies = [
        ("runner", "0003_verification_kind_scale_settings_host"),
        ("submissions", "0011_workloads_from_tracks_and_verification"),
    ]

    operations = [
        migrations.AlterField(
            model_name="verificationrun",
            name="verdict",
            field=models.CharField(
                blank=True,
                choices=[
                    ("reproduced", "Reproduced"),
                    ("shape_only", "Shape only"),
                    ("not_reproduced", "Not reproduced"),
                    ("comparison", "Comparison"),
                    ("inconclusive", "Inconclusive"),
                ],
                max_length=16,
            ),
        ),
        migrations.RunPython(rejudge, migrations.RunPython.noop),
    ]
