"""Server settings of several entries side by side, the differences first. Pure: no Django."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class SettingRow:
    key: str
    values: tuple[str | None, ...]  # one per entry; None where the entry does not list it
    differs: bool
    # Listed by only some of the entries that list settings at all (another server's variable):
    # not a difference, shown beside the differences rather than among the shared settings.
    partial: bool = False

    @property
    def stated(self) -> str | None:
        """The value the entries that list the setting agree on (the first, where they
        differ)."""
        return next((value for value in self.values if value is not None), None)


def settings_side_by_side(settings: Sequence[Mapping[str, str]]) -> list[SettingRow]:
    """Every key any entry lists, one row each: the rows whose values differ among the entries
    that list the key first, then those only some of the entries listing settings list, then
    the shared ones, each part by key. An entry that does not list a setting says nothing of
    it: a third entry whose log printed no settings leaves the differences of the other two as
    they were, rather than making every setting differ."""
    keys = set().union(*settings) if settings else set()
    speaking = [index for index, entry in enumerate(settings) if entry]
    rows = []
    for key in keys:
        values = tuple(entry.get(key) for entry in settings)
        stated = {value for value in values if value is not None}
        partial = any(values[index] is None for index in speaking)
        rows.append(SettingRow(key, values, differs=len(stated) > 1, partial=partial))
    return sorted(rows, key=lambda row: (not row.differs, not row.partial, row.key))
