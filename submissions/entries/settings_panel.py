"""The entry page's list of its server settings: where each came from and whether a
verification rerun applies it, or why not, as the runner decides it through the wings' door
(`setting_decisions`); until a worker has read its server's option list, the name allow-list
of setup/server_settings.py can only refuse, never promise."""

from __future__ import annotations

from submissions.models import SettingSource, Submission
from submissions.setup.declared import declared_config, entry_family
from submissions.setup.server_settings import refusal
from submissions.wings import setting_decisions


def settings_panel(submission: Submission) -> dict:
    """The entry page's list of settings: each with where it came from and whether a
    verification rerun applies it (or why not); the declared lines that are not settings."""
    family = entry_family(submission)
    # The benchmark's header lists every server variable: those are for comparing entries
    # (the compare page), not for a rerun to apply.
    listed = list(submission.server_settings.exclude(source=SettingSource.BENCHMARK_HEADER))
    # The verification's own decision where a worker has read its server's option list; until
    # then the name allow-list can only refuse, never promise.
    decided = setting_decisions({s.key: s.value for s in listed}, family)
    rows = [
        {
            "key": setting.key,
            "value": setting.value,
            "source": setting.get_source_display(),
            "line": setting.line,
            "refusal": (
                decided.get(setting.key, "")
                if decided is not None
                else refusal(setting.key, family) or ""
            ),
            "decided": decided is not None,
        }
        for setting in listed
    ]
    skipped = declared_config(submission).skipped if submission.server_config else []
    printed = submission.server_settings.filter(source=SettingSource.BENCHMARK_HEADER).count()
    return {"server_settings": rows, "settings_skipped": skipped, "settings_printed": printed}
