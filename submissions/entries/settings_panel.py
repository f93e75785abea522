"""The entry page's list of its server settings: where each came from and whether a
verification rerun applies it, or why not, as the runner decides it through the wings' door
(`setting_decisions`); until a worker has read its server's option list, the name allow-list
of setup/server_settings.py can only refuse, never promise."""

from __future__ import annotations

from submissions.caches.compiled import (
    PLACEHOLDER_ID,
    CompiledValues,
    compiled_sql,
    for_id,
    rows_of,
)
from submissions.models import ServerSetting, SettingSource, Submission
from submissions.setup.declared import declared_config, entry_family
from submissions.setup.server_settings import refusal
from submissions.wings import setting_decisions


def _refusal(fate) -> str:
    return "" if fate.applied else fate.sentence


# What the entry page shows of a configuration, however long it is (a 200,000-character one made
# a 2.75 MB page that took 1.5 s to build): the settings it declares (what differs from the
# server's defaults: a configuration names only what it changes) up to SETTINGS_SHOWN rows, its
# text up to CONFIG_SHOWN_LINES lines and CONFIG_SHOWN_CHARS characters, the lines not read up
# to SKIPPED_SHOWN; the whole text is one link away (entries/<pk>/server-config.txt).
SETTINGS_SHOWN = 100
CONFIG_SHOWN_LINES = 60
CONFIG_SHOWN_CHARS = 4_000
SKIPPED_SHOWN = 20


def config_excerpt(text: str) -> tuple[str, bool]:
    """The start of a configuration the page shows, and whether it is cut."""
    lines = text[: CONFIG_SHOWN_CHARS + 1].splitlines(keepends=True)[:CONFIG_SHOWN_LINES]
    shown = "".join(lines)[:CONFIG_SHOWN_CHARS]
    return shown, len(shown) < len(text)


def settings_counted(pk: int) -> CompiledValues:
    """(the settings entry `pk` declares, those its benchmark's header printed): one read of
    its own settings, written as SQL (the ORM took longer to build the aggregate than the
    database to count), compiled once per process: the entry page sends it with its other
    reads."""
    header = SettingSource.BENCHMARK_HEADER.value
    return for_id(
        compiled_sql(
            ("entry-page", "settings"),
            # The table's name from the model; the entry and the source are parameters.
            "SELECT COUNT(*) FILTER (WHERE source <> %s), COUNT(*) FILTER (WHERE source = %s) "  # noqa: S608
            f"FROM {ServerSetting._meta.db_table} WHERE submission_id = %s",  # nosec B608
            (header, header, PLACEHOLDER_ID),
            ("declared", "printed"),
        ),
        pk,
    )


def settings_panel(submission: Submission) -> dict:
    """The entry page's list of settings: each with where it came from and whether a
    verification rerun applies it (or why not); the declared lines that are not settings.
    Bounded however long the configuration (SETTINGS_SHOWN and the rest above)."""
    family = entry_family(submission)
    # The benchmark's header lists every server variable: those are for comparing entries
    # (the compare page), not for a rerun to apply. Both kinds counted in one read of the
    # entry's own settings; the list read only when there is one.
    ((settings_count, printed),) = rows_of(settings_counted(submission.pk))
    declared = submission.server_settings.exclude(source=SettingSource.BENCHMARK_HEADER)
    listed = (
        list(declared.order_by("source", "line", "key")[:SETTINGS_SHOWN]) if settings_count else []
    )
    # The verification's own decision where a worker has read its server's option list; until
    # then the name allow-list can only refuse, never promise. No setting listed: none to decide.
    decided = setting_decisions({s.key: s.value for s in listed}, family) if listed else None
    rows = [
        {
            "key": setting.key,
            "value": setting.value,
            "source": setting.get_source_display(),
            "line": setting.line,
            "refusal": (
                _refusal(decided[setting.key])
                if decided is not None
                else refusal(setting.key, family) or ""
            ),
            # What a rerun does with it: "applied", "applied as tmp_table_size", "applied,
            # scaled 1/k ...", "applied as 16M, the server's default ...", or the refusal.
            "decision": decided[setting.key].sentence if decided is not None else "",
            "decided": decided is not None,
        }
        for setting in listed
    ]
    skipped = declared_config(submission).skipped if submission.server_config else []
    excerpt, cut = config_excerpt(submission.server_config or "")
    return {
        "server_settings": rows,
        "settings_more": settings_count - len(rows),
        "settings_skipped": skipped[:SKIPPED_SHOWN],
        "skipped_more": max(len(skipped) - SKIPPED_SHOWN, 0),
        "settings_printed": printed,
        "config_excerpt": excerpt,
        "config_cut": cut,
        "config_lines": (submission.server_config or "").count("\n") + 1,
    }
