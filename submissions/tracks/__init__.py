"""The registry's tracks: the classic run and the seeds' other workloads (docs/IIBENCH.md,
"Workloads beyond the classic run"). A contest's `workload` picks its track, which decides what
the entrant declares, which rules apply, which figures are computed (`Submission.track_figures`),
how entries rank and what the pages plot. Pure: no Django. How a track's entry is rerun and
judged is the runner's (`RERUNS` in runner/judge/).

Adding a track is one package here (its declared fields, rule parameters, rules, figures,
ranking, board columns, plot and reference results: see fifo/) and its entry in TRACKS
(the import beside the others and the name in the tuple); a track that can be rerun adds its
rerun to runner/judge/.

May import `logparse`, `measures`, `contests.rules` and `setup.page_cache` (all pure); never Django,
`live` or `runner`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from submissions.measures.numbers import number

from .base import (
    LOG_KEY_TYPES,
    LOG_LOAD,
    LOG_OPTIONAL,
    LOG_SERIES,
    Ranking,
    Track,
    TrackColumn,
    TrackField,
    TrackParameter,
)
from .bulk_load import BULK_LOAD
from .classic import CLASSIC
from .crash_recovery import CRASH_RECOVERY
from .fifo import FIFO
from .pk_types import PK_TYPES
from .query import QUERY, SeriesError, parse_declared_series

# One line per track, in the order the contest form offers them.
TRACKS: dict[str, Track] = {
    track.workload: track for track in (CLASSIC, FIFO, QUERY, PK_TYPES, BULK_LOAD, CRASH_RECOVERY)
}


def workload_choices() -> list[tuple[str, str]]:
    """The contest's workload choices (Contest.workload): every track, as TRACKS holds them."""
    return [(track.workload, track.label) for track in TRACKS.values()]


# Every declared field of every track, by name: the API accepts them all and the contest's
# track keeps its own.
ALL_FIELDS: dict[str, TrackField] = {
    field.name: field for track in TRACKS.values() for field in track.fields
}


# The track a contest runs unless it names another, and what an unknown workload falls back to.
DEFAULT_TRACK = CLASSIC


def track_for(workload: str) -> Track:
    return TRACKS.get(workload, DEFAULT_TRACK)


class TrackInputError(ValueError):
    """A value the track cannot take; `field` names the declared field or rule parameter."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


def track_rules(track: Track, stored: Mapping[str, Any] | None) -> dict[str, int | float]:
    """The contest's track parameters: the stored values over the track's defaults. Raises
    TrackInputError for an unknown name or a value out of range."""
    known = {parameter.name: parameter for parameter in track.parameters}
    stored = dict(stored or {})
    for name in stored:
        if name not in known:
            takes = ", ".join(
                f"{p.name} (default {number(p.default) if p.integer else f'{p.default:g}'})"
                for p in track.parameters
            )
            raise TrackInputError(
                name,
                f"{track.label} has no rule parameter '{name}'; it takes "
                f"{takes or 'none'}. Empty: the defaults.",
            )
    values = track.default_rules()
    for name, value in stored.items():
        values[name] = _parameter_value(known[name], value)
    return values


def _parameter_value(parameter: TrackParameter, value: Any) -> int | float:
    try:
        if isinstance(value, bool):
            raise ValueError
        number_ = float(value)
        if parameter.integer:
            if not number_.is_integer():
                raise ValueError
            number_ = int(number_)
    except (TypeError, ValueError):
        kind = "a whole number" if parameter.integer else "a number"
        raise TrackInputError(
            parameter.name, f"{parameter.name}: {value!r} is not {kind}."
        ) from None
    if number_ < parameter.minimum:
        raise TrackInputError(
            parameter.name, f"{parameter.name}: {number_} is below {number(parameter.minimum)}."
        )
    return number_


def clean_declared(track: Track, raw: Mapping[str, Any]) -> dict[str, Any]:
    """The track's declared fields from what the form or the API sent, typed. Raises
    TrackInputError naming the field for a missing or unreadable value."""
    cleaned: dict[str, Any] = {}
    for field in track.fields:
        value = raw.get(field.name)
        if isinstance(value, str):
            value = value.strip()
        if value in (None, ""):
            if field.required:
                raise TrackInputError(field.name, f"{field.label}: this track needs it.")
            continue
        cleaned[field.name] = _declared_value(field, value)
    return cleaned


def _declared_value(field: TrackField, value: Any) -> Any:
    if field.kind == "series":
        try:
            parse_declared_series(str(value))
        except SeriesError as error:
            raise TrackInputError(field.name, f"{field.label}: {error}") from None
        return str(value)
    try:
        if isinstance(value, bool):
            raise ValueError
        if field.kind == "int":
            as_float = float(str(value).replace(",", "").replace("_", ""))
            if not as_float.is_integer():
                raise ValueError
            return int(as_float)
        result = float(str(value).replace(",", ""))
        if result != result or result in (float("inf"), float("-inf")):
            raise ValueError
        return result
    except ValueError:
        kind = "a whole number" if field.kind == "int" else "a number"
        raise TrackInputError(field.name, f"{field.label}: {value!r} is not {kind}.") from None


__all__ = [
    "ALL_FIELDS",
    "CLASSIC",
    "DEFAULT_TRACK",
    "LOG_KEY_TYPES",
    "LOG_LOAD",
    "LOG_OPTIONAL",
    "LOG_SERIES",
    "TRACKS",
    "Ranking",
    "Track",
    "TrackColumn",
    "TrackField",
    "TrackInputError",
    "TrackParameter",
    "clean_declared",
    "track_for",
    "track_rules",
    "workload_choices",
]
