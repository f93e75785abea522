"""What the downloads and the API send: leaderboard rows as plain dicts and CSV lines, and a
series' samples as JSON or CSV produced in chunks, so 2,000,000 samples never sit in memory as
one string."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator

import numpy as np

from submissions import tracks
from submissions.board.rows import BoardRow
from submissions.contests.rules import RuleSet
from submissions.measures.costs import BOARD_COSTS
from submissions.measures.figures import format_exact_duration

# The API's fields, in order; the CSV adds a few for people reading it in a spreadsheet.
# `elapsed_seconds` is measured; `seconds_to_target` is measured or, with `estimated`, an
# extrapolation whose basis `estimate_basis` states: two fields, never one.
LEADERBOARD_FIELDS = (
    "rank", "id", "entrant", "storage_engine", "elapsed_seconds", "seconds_to_target",
    "estimated", "estimate_basis", "terminal_rate", "average_rate", "verified", "trust", "reference",
    "demo", "size_gib", *(cost.board for cost in BOARD_COSTS),
)  # fmt: skip
LEADERBOARD_EXTRA_FIELDS = ("hardware", "reason", "verification", "verification_outcome")
# `id` is an entry's (its /entries/<id>/); a reference row's own number, from another table, is
# `reference_id`, never in the same column.
LEADERBOARD_CSV_FIELDS = (
    "rank", "id", "reference", "reference_id", "demo", "entrant", "storage_engine", "hardware",
    "elapsed_seconds", "elapsed", "seconds_to_target", "to_target", "estimated",
    "estimate_basis", "terminal_rate", "average_rate", "verified", "trust", "reason", "verification",
    "verification_outcome", "size_gib", *(cost.board for cost in BOARD_COSTS),
)  # fmt: skip


def leaderboard_row_data(row: BoardRow) -> dict:
    return {
        "rank": row.rank,
        "id": row.id,
        "entrant": row.entrant,
        "storage_engine": row.storage_engine,
        "elapsed_seconds": row.elapsed_seconds,
        "seconds_to_target": row.seconds_to_target,
        "estimate_basis": row.estimate_basis,
        "demo": row.demo,
        "terminal_rate": row.terminal_rate,
        "average_rate": row.average_rate,
        "verified": row.verified,
        "trust": row.trust or None,
        "reference": row.reference,
        "hardware": row.hardware,
        "estimated": row.estimated,
        "reason": row.reason,
        "track_class": row.track_class,
        "track_metric": row.track_metric,
        "track_figures": row.track_figures,
        "verification": row.verification,
        "verification_outcome": row.verification_words,
        # What the run cost; None where its log does not say (server CPU per row).
        "size_gib": None if row.db_size_bytes is None else row.db_size_bytes / 1024**3,
        **{cost.board: row.costs.get(cost.figure) for cost in BOARD_COSTS},
    }


def _csv_value(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.6g}" if abs(value) < 1e6 else f"{value:.1f}"
    text = str(value)
    # A spreadsheet runs a cell starting with =, +, - or @ as a formula: entrants write these.
    return "'" + text if text[:1] in FORMULA_STARTS else text


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def track_csv_columns(track: tracks.Track, rules: RuleSet | None) -> list[tuple[str, object]]:
    """The track's own CSV columns: its class, then each board column's value as a number."""
    if rules is None:
        return []
    columns: list[tuple[str, object]] = []
    if track.ranking.class_key:
        columns.append(("class", lambda row: row.track_class))
    for column in track.columns:
        columns.append(
            (column.title(rules), lambda row, column=column: column.value_of(row.track_figures))
        )
    return columns


def leaderboard_csv_lines(
    rows: Iterable[BoardRow],
    track: tracks.Track = tracks.DEFAULT_TRACK,
    rules: RuleSet | None = None,
) -> Iterator[str]:
    """The board as CSV: the run's columns, then the track's own columns
    (`Track.board_columns`)."""
    extra = track_csv_columns(track, rules)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")

    def line(values) -> str:
        buffer.seek(0)
        buffer.truncate()
        writer.writerow(values)
        return buffer.getvalue()

    yield line([*LEADERBOARD_CSV_FIELDS, *(title for title, _ in extra)])
    for row in rows:
        data = leaderboard_row_data(row)
        seconds, to_target = row.elapsed_seconds, row.seconds_to_target
        data["elapsed"] = "" if seconds is None else format_exact_duration(seconds)
        data["to_target"] = (
            "" if to_target is None else format_exact_duration(to_target, row.estimated)
        )
        data["id"], data["reference_id"] = (None, row.id) if row.reference else (row.id, None)
        values = [data[name] for name in LEADERBOARD_CSV_FIELDS]
        values += [value(row) for _, value in extra]
        yield line([_csv_value(value) for value in values])


# Samples ------------------------------------------------------------------------------------

SAMPLE_COLUMN_ORDER = (
    "rows", "seconds", "interval_rate", "cumulative_rate", "line", "deleted",
    "interval_delete_rate", "queries", "interval_query_rate",
)  # fmt: skip
CHUNK = 50_000


def ordered_columns(columns: dict[str, np.ndarray]) -> list[tuple[str, np.ndarray]]:
    known = [(name, columns[name]) for name in SAMPLE_COLUMN_ORDER if name in columns]
    extra = [(name, column) for name, column in columns.items() if name not in SAMPLE_COLUMN_ORDER]
    return known + extra


def _texts(column: np.ndarray, missing: str) -> list[str]:
    """Each value as its shortest exact text; NaN and infinities (which JSON cannot carry)
    as `missing`."""
    if column.dtype.kind in "iu":
        return [str(value) for value in column.tolist()]
    finite = np.isfinite(column)
    texts = [repr(value) for value in column.tolist()]
    if not finite.all():
        for index in np.flatnonzero(~finite).tolist():
            texts[index] = missing
    return texts


def samples_json_chunks(entry_id: int, columns: dict[str, np.ndarray]) -> Iterator[str]:
    """{"id": .., "count": .., "columns": {"rows": [...], ...}}, one chunk at a time."""
    ordered = ordered_columns(columns)
    count = len(ordered[0][1]) if ordered else 0
    yield f'{{"id": {entry_id}, "count": {count}, "columns": {{'
    for number, (name, column) in enumerate(ordered):
        yield ("" if number == 0 else ", ") + json.dumps(name) + ": ["
        for start in range(0, len(column), CHUNK):
            texts = _texts(column[start : start + CHUNK], "null")
            yield ("" if start == 0 else ",") + ",".join(texts)
        yield "]"
    yield "}}\n"


def samples_csv_chunks(columns: dict[str, np.ndarray]) -> Iterator[str]:
    ordered = ordered_columns(columns)
    yield ",".join(name for name, _ in ordered) + "\r\n"
    count = len(ordered[0][1]) if ordered else 0
    for start in range(0, count, CHUNK):
        texts = [_texts(column[start : start + CHUNK], "") for _, column in ordered]
        yield "".join(",".join(values) + "\r\n" for values in zip(*texts, strict=True))
