from django.db import migrations

STORAGE = "ALTER TABLE {table} ALTER COLUMN {column} SET STORAGE {storage}"


def storage_setter(storage: str):
    def set_storage(apps, schema_editor):
        """The packed series is deflated already: PostgreSQL's own compression of it (the default
        EXTENDED storage) found matches in its header, went on through the deflated bytes and
        saved nothing, and took ~0.8 s of a 2,000,000-report upload. EXTERNAL stores it as it is
        (only PostgreSQL has the setting)."""
        if schema_editor.connection.vendor != "postgresql":
            return
        model = apps.get_model("submissions", "SampleSeries")
        schema_editor.execute(
            STORAGE.format(
                table=schema_editor.quote_name(model._meta.db_table),
                column=schema_editor.quote_name(model._meta.get_field("columns").column),
                storage=storage,
            )
        )

    return set_storage


class Migration(migrations.Migration):
    dependencies = [
        ("submissions", "0015_preview_seconds"),
    ]

    operations = [
        migrations.RunPython(storage_setter("EXTERNAL"), storage_setter("EXTENDED")),
    ]
