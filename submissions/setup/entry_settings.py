"""The server settings entries ran with: the C benchmark's header stored as settings
(source `benchmark_header`), and side by side on the compare page with the declared ones.

Entries stored before the header was kept have no such rows: their settings are read from the
stored log up to its column header only (a few hundred lines, never the reports).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.db import transaction
from django.db.models import QuerySet

from submissions.logparse.c_format import header_settings
from submissions.logparse.model import ServerSettingLine
from submissions.logparse.reader import text_lines
from submissions.models import ServerSetting, SettingSource, Submission
from submissions.setup.diff import settings_side_by_side
from submissions.setup.server_settings import MYSQL, POSTGRESQL, refusal

# The memory settings a rerun scales 1/k (MEMORY_RULES in runner/judge/scaling.py, which a test
# holds to these names): a rerun takes them from the claim's log, default or not.
SCALED_MEMORY = {
    MYSQL: frozenset(
        (
            "innodb_buffer_pool_size",
            "key_buffer_size",
            "aria_pagecache_buffer_size",
            "rocksdb_block_cache_size",
            "rocksdb_db_write_buffer_size",
        )
    ),
    POSTGRESQL: frozenset(("shared_buffers", "effective_cache_size")),
}


def stored_log_header(entry: Submission, read: Callable[[Iterable[str]], dict]) -> dict:
    """What `read` finds in the header of the entry's stored C benchmark log (its settings, its
    machine: logparse.c_format), reading the header only; empty for other logs, and for a log
    gone from storage or a damaged archive (nothing to show, never a 500)."""
    if not entry.log or entry.log_format != "iibench-c":
        return {}
    try:
        with entry.log.open("rb") as raw:
            return read(text_lines(raw))
    except (OSError, EOFError):
        return {}


def log_header_settings(entry: Submission) -> dict[str, str]:
    """name -> value as the entry's benchmark printed them; empty for other logs."""
    found = stored_log_header(entry, header_settings)
    return {name: setting.value for name, setting in found.items()}


@transaction.atomic
def header_settings_store(
    *, submission: Submission, settings: dict[str, ServerSettingLine]
) -> None:
    """Replace the entry's `benchmark_header` settings with those its log's header lists
    (`ParsedLog.settings`)."""
    submission.server_settings.filter(source=SettingSource.BENCHMARK_HEADER).delete()
    if not settings:
        return
    ServerSetting.objects.bulk_create(
        ServerSetting(
            submission=submission,
            key=name[:200],
            value=setting.value[:1000],
            source=SettingSource.BENCHMARK_HEADER,
            line=setting.line,
        )
        for name, setting in settings.items()
    )


def logged_settings(entry: Submission, stored: list[ServerSetting] | None = None) -> dict[str, str]:
    """name -> value as the entry's benchmark printed its server's settings: the stored
    header (from `stored` when the caller has them), else the log's own (entries stored
    before it was kept); empty for other logs."""
    if stored is None:
        stored = entry.server_settings.filter(source=SettingSource.BENCHMARK_HEADER)
    header = {s.key: s.value for s in stored if s.source == SettingSource.BENCHMARK_HEADER}
    return header or log_header_settings(entry)


def settings_as_run(entry: Submission, declared: dict[str, str], family: str) -> dict[str, str]:
    """What a rerun takes as the entry's declaration: the declared settings; where the entrant
    declared none, its C benchmark log's own: those its header says its server ran with other
    than the defaults (`changed`) and the memory sizes the scaling rule scales, default or not
    (the pool the claim ran with, not one guessed from its RAM), each one a rerun may apply
    (where the server ran, its port and files, are not the solution's). Empty for other logs."""
    if declared:
        return declared
    memory = SCALED_MEMORY.get(family, frozenset())
    found = stored_log_header(entry, header_settings)
    return {
        name: each.value
        for name, each in found.items()
        if (each.state == "changed" or name in memory) and refusal(name, family) is None
    }


def entry_settings(entry: Submission, stored: list[ServerSetting]) -> dict[str, str]:
    """What the server ran with: the declared settings, overridden by what the benchmark's
    header printed (the server's own word)."""
    declared = {s.key: s.value for s in stored if s.source == SettingSource.DECLARED}
    return {**declared, **logged_settings(entry, stored)}


def compared_settings_read(entries: list[Submission]) -> QuerySet[ServerSetting]:
    """What the compare page's settings table reads of `entries`."""
    return ServerSetting.objects.filter(
        submission__in=[entry.pk for entry in entries],
        source__in=(SettingSource.DECLARED, SettingSource.BENCHMARK_HEADER),
    )


def compared_settings(entries: list[Submission], read: list[ServerSetting] | None = None) -> dict:
    """The compare page's settings table: rows with the differences first, and the counts.
    `read`: what `compared_settings_read(entries)` found, read already (else read here)."""
    stored: dict[int, list[ServerSetting]] = {entry.pk: [] for entry in entries}
    for setting in compared_settings_read(entries) if read is None else read:
        stored[setting.submission_id].append(setting)
    listed = [entry_settings(entry, stored[entry.pk]) for entry in entries]
    rows = settings_side_by_side(listed)
    differ = sum(row.differs for row in rows)
    partial = sum(row.partial and not row.differs for row in rows)
    return {
        "settings_rows": rows,
        "settings_differ": differ,
        "settings_partial": partial,
        "settings_same": len(rows) - differ - partial,
        # Entries that list no setting at all: named once, not a dash in every row.
        "settings_silent": [
            entry for entry, found in zip(entries, listed, strict=True) if not found
        ],
    }
