"""A contest's rules as a snapshot (plain JSON) and the change between two snapshots in words
("memory cap 16 -> 32 GB"). Pure: no Django. The snapshot is what a RuleVersion stores and what
verdicts and rule sentences are both made from."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from submissions import tracks
from submissions.contests.rules import RuleSet

# Each rule field of a contest: how a change of it reads, and its unit.
RULE_FIELDS: dict[str, tuple[str, str]] = {
    "workload": ("workload", ""),
    "target_rows": ("target", " rows"),
    "rows_per_commit": ("rows per commit", ""),
    "max_rows_per_insert": ("rows per INSERT cap", ""),
    "report_every_rows": ("report interval", " rows"),
    "report_every_seconds": ("report interval in seconds", " s"),
    "indexes_from_start": ("indexes from the start", ""),
    "terminal_window_rows": ("terminal window", " rows"),
    "max_sockets": ("socket cap", ""),
    "max_cores": ("core cap", ""),
    "max_memory_gb": ("memory cap", " GB"),
    "max_drives": ("drive cap", ""),
    "require_direct_attached": ("direct-attached drives required", ""),
    "raid_allowed": ("RAID allowed", ""),
    "required_mysql_version": ("required MySQL version", ""),
    "preferred_os": ("preferred OS", ""),
    "deadline": ("deadline", ""),
    "timezone": ("time zone", ""),
    "track_rules": ("track rules", ""),
}


def snapshot_of(values: Mapping) -> dict:
    """The rules of a contest (its field values by name) as JSON: the track's parameters
    complete, so {} and the spelled-out defaults are the same rules."""
    snapshot = {name: values.get(name) for name in RULE_FIELDS if name != "track_rules"}
    deadline = snapshot["deadline"]
    # In UTC: the admin's copy and the database's spell the same moment in different zones.
    if isinstance(deadline, datetime):
        snapshot["deadline"] = deadline.astimezone(UTC).isoformat()
    track = tracks.track_for(values["workload"])
    try:
        snapshot["track_rules"] = tracks.track_rules(track, values["track_rules"])
    except tracks.TrackInputError:
        # Stored without the admin's check (a shell): keep what is there, as it is.
        snapshot["track_rules"] = dict(values["track_rules"] or {})
    return snapshot


def rule_set_of(snapshot: Mapping) -> RuleSet:
    deadline = snapshot.get("deadline")
    return RuleSet(
        target_rows=snapshot["target_rows"],
        rows_per_commit=snapshot["rows_per_commit"],
        max_rows_per_insert=snapshot["max_rows_per_insert"],
        report_every_rows=snapshot["report_every_rows"],
        report_every_seconds=snapshot.get("report_every_seconds"),
        indexes_from_start=snapshot["indexes_from_start"],
        max_sockets=snapshot["max_sockets"],
        max_cores=snapshot["max_cores"],
        max_memory_gb=snapshot["max_memory_gb"],
        max_drives=snapshot["max_drives"],
        require_direct_attached=snapshot["require_direct_attached"],
        raid_allowed=snapshot["raid_allowed"],
        required_mysql_version=snapshot["required_mysql_version"],
        preferred_os=snapshot["preferred_os"],
        deadline=datetime.fromisoformat(deadline) if deadline else None,
        timezone=snapshot["timezone"],
        terminal_window_rows=snapshot["terminal_window_rows"],
        track=dict(snapshot.get("track_rules") or {}),
    )


def rule_changes(old: Mapping, new: Mapping) -> list[str]:
    """What changed from `old` to `new`, one phrase per change, in RULE_FIELDS order."""
    changes = []
    for name, (label, unit) in RULE_FIELDS.items():
        before, after = old.get(name), new.get(name)
        if before == after:
            continue
        if name == "track_rules":
            changes.extend(_track_changes(before or {}, after or {}))
        elif name == "deadline":
            zone = ZoneInfo(new.get("timezone") or "UTC")
            changes.append(f"deadline {_when(before, zone)} -> {_when(after, zone)}")
        elif isinstance(after, bool) or isinstance(before, bool):
            changes.append(f"{label}: {'yes' if before else 'no'} -> {'yes' if after else 'no'}")
        else:
            shown_unit = unit if isinstance(after, int | float) else ""
            changes.append(f"{label} {_value(before)} -> {_value(after)}{shown_unit}")
    return changes


def _track_changes(before: Mapping, after: Mapping) -> list[str]:
    return [
        f"{name} {_value(before.get(name))} -> {_value(after.get(name))}"
        for name in sorted({*before, *after})
        if before.get(name) != after.get(name)
    ]


def _value(value) -> str:
    if value is None:
        return "no limit"
    if value == "":
        return "none"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{int(value):,}" if float(value).is_integer() else f"{value:,g}"
    return str(value)


def _when(value: str | None, zone: ZoneInfo) -> str:
    if not value:
        return "none"
    return datetime.fromisoformat(value).astimezone(zone).strftime("%d %b %Y %H:%M %Z")
