"""The entry's declared server configuration, stored as settings (ServerSetting rows) when the
entry is stored or its declaration changes; read by the entry page (entries/settings_panel.py)
and by verification reruns."""

from __future__ import annotations

from django.db import transaction

from submissions.models import ServerSetting, SettingSource, Submission
from submissions.setup.server_settings import ReadConfig, family_of, read_config


def entry_family(submission: Submission) -> str:
    return family_of(
        server_family=submission.server_family, storage_engine=submission.storage_engine
    )


def declared_config(submission: Submission) -> ReadConfig:
    return read_config(submission.server_config or "", entry_family(submission))


@transaction.atomic
def declared_settings_store(*, submission: Submission) -> list[ServerSetting]:
    """Replace the entry's declared settings with those its configuration text holds now."""
    submission.server_settings.filter(source=SettingSource.DECLARED).delete()
    rows = [
        ServerSetting(
            submission=submission,
            key=setting.key[:200],
            value=setting.value[:1000],
            source=SettingSource.DECLARED,
            line=setting.line,
        )
        for setting in declared_config(submission).settings
    ]
    return ServerSetting.objects.bulk_create(rows)


def declared_settings(submission: Submission) -> dict[str, str]:
    found = submission.server_settings.filter(source=SettingSource.DECLARED)
    return {setting.key: setting.value for setting in found}
