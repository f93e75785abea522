"""Server settings of several entries side by side, the differences first. Pure: no Django."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class SettingRow:
    key: str
    values: tuple[str | None, ...]  # one per entry; None where the entry does not list it
    differs: bool

    @property
    def stated(self) -> str | None:
        """The value the entries that list the setting agree on (the first, where they
        differ)."""
        return next((value for value in self.values if value is not None), None)

    @property
    def unstated(self) -> int:
        """How many entries do not list the setting."""
        return sum(value is None for value in self.values)


def settings_side_by_side(settings: Sequence[Mapping[str, str]]) -> list[SettingRow]:
    """Every key any entry lists, one row each: the rows whose values differ among the entries
    that list the key first, then the rest, each part by key. An entry that does not list a
    setting says nothing of it: a third entry whose log printed no settings leaves the
    differences of the other two as they were, rather than making every setting differ."""
    keys = set().union(*settings) if settings else set()
    rows = []
    for key in keys:
        values = tuple(entry.get(key) for entry in settings)
        stated = {value for value in values if value is not None}
        rows.append(SettingRow(key, values, differs=len(stated) > 1))
    return sorted(rows, key=lambda row: (not row.differs, row.key))
