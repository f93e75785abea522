from django.db import migrations

from submissions.measures.series import downsample, unpack_columns


def add_seconds_to_previews(apps, schema_editor):
    """Previews stored before they carried `seconds` get it from their packed series, once,
    so that the compare page never reads a whole series to put a curve against time."""
    SampleSeries = apps.get_model("submissions", "SampleSeries")
    stored = SampleSeries.objects.exclude(preview__has_key="seconds").only("pk", "preview")
    for series in stored.iterator(chunk_size=50):
        packed = SampleSeries.objects.values_list("columns", flat=True).get(pk=series.pk)
        if not packed:
            continue
        columns = unpack_columns(bytes(packed))
        if "seconds" not in columns or not len(columns["rows"]):
            continue
        x, y = downsample(columns["rows"], columns["seconds"])
        if x:
            preview = {**(series.preview or {}), "seconds": {"x": x, "y": y}}
            SampleSeries.objects.filter(pk=series.pk).update(preview=preview)


class Migration(migrations.Migration):
    dependencies = [
        ("submissions", "0014_entry_machine_cpu"),
    ]

    operations = [
        migrations.RunPython(add_seconds_to_previews, migrations.RunPython.noop),
    ]
