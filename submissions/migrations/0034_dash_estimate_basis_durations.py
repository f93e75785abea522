"""An estimate's stored basis ("measured 3.0 days to 500,000,000 rows, then ...") says its time
so far in the site's one duration format ("3d 0h 00m 00s"), re-rendered from the entry's stored
elapsed_seconds, as the board, the entry page, the API and the exports say every other
duration (issue 43). The rest of the sentence is kept as stored. Each contest holding a changed
entry moves its board version, so cached boards and the open dataset are made again."""

import math
import re

from django.db import migrations
from django.db.models import F

OLD = re.compile(r"^measured (?P<said>.+?) to (?P<rows>[\d,]+ rows, then )")


def exact_duration(seconds: float) -> str:
    """The site's format as it stands today (submissions/measures/figures.py), frozen here."""
    if seconds < 59.95:
        return f"{max(seconds, 0.0):.1f} s"
    days, rest = divmod(round(seconds), 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}d {hours}h {minutes:02d}m {secs:02d}s"
    if hours:
        return f"{hours}h {minutes:02d}m {secs:02d}s"
    return f"{minutes}m {secs:02d}s"


def said_once(apps, schema_editor):
    Submission = apps.get_model("submissions", "Submission")
    Contest = apps.get_model("submissions", "Contest")
    changed, contests = [], set()
    entries = (
        Submission.objects.filter(estimate_basis__startswith="measured ")
        .exclude(elapsed_seconds=None)
        .only("pk", "contest_id", "estimate_basis", "elapsed_seconds")
    )
    for entry in entries.iterator(chunk_size=2000):
        found = OLD.match(entry.estimate_basis)
        if found is None or not math.isfinite(entry.elapsed_seconds):
            continue
        basis = OLD.sub(f"measured {exact_duration(entry.elapsed_seconds)} to \\g<rows>",
                        entry.estimate_basis, count=1)  # fmt: skip
        if basis != entry.estimate_basis:
            entry.estimate_basis = basis
            changed.append(entry)
            contests.add(entry.contest_id)
        if len(changed) >= 2000:
            Submission.objects.bulk_update(changed, ["estimate_basis"])
            changed = []
    Submission.objects.bulk_update(changed, ["estimate_basis"])
    Contest.objects.filter(pk__in=contests).update(board_version=F("board_version") + 1)


class Migration(migrations.Migration):
    dependencies = [("submissions", "0033_dashboard_indexes")]

    operations = [migrations.RunPython(said_once, migrations.RunPython.noop)]
