"""Server settings of several entries side by side, the differences first. Pure: no Django."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class SettingRow:
    key: str
    values: tuple[str | None, ...]  # one per entry; None where the entry does not list it
    differs: bool


def settings_side_by_side(settings: Sequence[Mapping[str, str]]) -> list[SettingRow]:
    """Every key any entry lists, one row each: the rows whose values differ (a missing value
    differs from any value) first, then the rest, each part by key."""
    keys = set().union(*settings) if settings else set()
    rows = []
    for key in keys:
        values = tuple(entry.get(key) for entry in settings)
        rows.append(SettingRow(key, values, differs=len(set(values)) > 1))
    return sorted(rows, key=lambda row: (not row.differs, row.key))
