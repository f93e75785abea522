"""The open dataset's tables, their columns and what each means (pure: pyarrow and numpy).

- entries: one row per published entry: its contest and track, the declaration (never the
  entrant's e-mail; the name only where the entrant published it), the figures, whether it is
  eligible and why not, its trust level and what that level proves, the demo flag, links;
- ranks: one row per ranked entry of a contest, its rank on the board (a file per contest);
- verdicts: one row per ground-rule verdict with its evidence (line, value, limit);
- series: one row per report of an entry's log: the parser's columns (logparse.model.Series),
  null where that log does not carry one.

The meanings travel with the files (each Parquet field's `description` metadata) and the
docs (docs/api.md) list the same words."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from submissions.logparse.model import Series
from submissions.measures.costs import PER_ROW_COSTS

STRING, INT, FLOAT, BOOL = pa.string(), pa.int64(), pa.float64(), pa.bool_()
TIME = pa.timestamp("us", tz="UTC")

ENTRY_COLUMNS: tuple[tuple[str, pa.DataType, str], ...] = (
    ("id", INT, "The entry's id: /entries/<id>/ on the site."),
    ("contest", STRING, "The contest's slug."),
    ("contest_title", STRING, "The contest's title."),
    ("track", STRING, "The contest's workload track (classic, fifo, query, ...)."),
    ("entrant", STRING, 'The entrant\'s name where published, else "Anonymous entrant".'),
    ("submitted_at", TIME, "When the entry was sent."),
    ("edited_at", TIME, "The entrant's last change of the declaration; null: never edited."),
    ("cpu_model", STRING, "Declared CPU model."),
    ("sockets", INT, "Declared sockets."),
    ("cores", INT, "Declared cores in total."),
    ("cpu_ghz", FLOAT, "Declared CPU clock (GHz)."),
    ("memory_gb", FLOAT, "Declared memory (GB)."),
    ("drives", INT, "Declared data drives."),
    ("drive_kind", STRING, "hdd, ssd or nvme."),
    ("raid_level", STRING, 'Declared RAID ("" : none).'),
    ("direct_attached", BOOL, "The drives are direct attached."),
    ("os", STRING, "Declared OS and version."),
    ("server_family", STRING, "mysql, mariadb, percona, postgresql, sqlite or other."),
    ("server_version", STRING, "Declared server version."),
    ("storage_engine", STRING, "The storage engine as the entrant wrote it."),
    ("storage_engine_version", STRING, "Declared storage engine version."),
    ("engine", STRING, 'The engine the board files it under ("InnoDB" for "InnoDB plugin").'),
    ("solution_description", STRING, "The entrant's solution (Markdown)."),
    ("server_config", STRING, "The declared server configuration (my.cnf), as sent."),
    ("track_declared", STRING, "What the entrant declared for the track beyond the run (JSON)."),
    ("log_format", STRING, "Which iiBench printed the log."),
    ("rows", INT, "Rows inserted, from the log."),
    ("elapsed_seconds", FLOAT, "Measured elapsed time: the log's summary or last report."),
    ("elapsed_source", STRING, "The line (and column) elapsed was read from."),
    ("average_rate", FLOAT, "rows / elapsed_seconds (rows/s)."),
    ("terminal_rate", FLOAT, "Rows/s over the terminal window; null: too short to measure."),
    ("terminal_window_rows", INT, "Rows in the terminal window."),
    ("terminal_window_start_row", INT, "Where the terminal window starts."),
    ("terminal_window_basis", STRING, "How the terminal window was sized."),
    ("seconds_to_target", FLOAT, "Time to the contest's rows: measured, or estimated."),
    ("estimated", BOOL, "seconds_to_target is an extrapolation (estimate_basis says of what)."),
    ("estimate_basis", STRING, 'What an estimate extrapolates; "" when measured.'),
    ("excerpt", BOOL, "The log does not start at the run's start."),
    ("track_figures", STRING, "The track's own figures (JSON); {} for the classic track."),
    ("track_metric", FLOAT, "The value the track ranks by; null: ranked by the run's figures."),
    ("track_class", STRING, 'The track\'s class ("" : none).'),
    ("db_size_bytes", INT, "Table and indexes at the last report; null: not in the log."),
    *((cost.figure, FLOAT, cost.meaning) for cost in PER_ROW_COSTS),
    ("eligible", BOOL, "Every ground rule passed."),
    ("ineligible_reason", STRING, 'Why not eligible ("" : eligible).'),
    ("rules_version", INT, "The contest's rule version the verdicts were made under."),
    ("checked_at", TIME, "When the verdicts were made."),
    ("verdicts_failed", INT, "Verdicts with status fail (the verdicts table has them all)."),
    ("verified", BOOL, "A verification rerun reproduced the claim as it is declared now."),
    (
        "verification",
        STRING,
        '"reproduced", "shape_only", "not_reproduced", "inconclusive", "before_edit" (judged '
        'before an edit of the machine, server, engine or settings) or "": its outcome.',
    ),
    ("verification_outcome", STRING, 'The verification\'s outcome in words ("" : none).'),
    ("trust", STRING, "self-reported, streamed or verified."),
    ("trust_means", STRING, "What that trust level proves, and what it does not."),
    ("demo", STRING, '"demo" (a real run made for the demo), "synthetic" (a made-up log) or "".'),
    ("series_reports", INT, "Report lines in the series table (0: none stored)."),
    ("page", STRING, "The entry's page, a path on the site."),
    ("log_url", STRING, 'The original log, a path on the site ("" : no log).'),
    ("samples_url", STRING, 'The series as JSON or CSV, a path on the site ("" : none).'),
)

# A contest's ranks, apart from its entries' rows: an upload ranked first moves the rank of
# every entry below it, and rewrites this one small file of its contest, not every part.
RANK_COLUMNS: tuple[tuple[str, pa.DataType, str], ...] = (
    ("entry_id", INT, "The entry (entries.id)."),
    ("contest", STRING, "The contest's slug."),
    (
        "rank",
        INT,
        "Rank on its contest's board when this file was made (one row per ranked entry).",
    ),
)

VERDICT_COLUMNS: tuple[tuple[str, pa.DataType, str], ...] = (
    ("entry_id", INT, "The entry (entries.id)."),
    ("contest", STRING, "The contest's slug."),
    ("rules_version", INT, "The rule version the verdict was made under."),
    ("rule", STRING, "The ground rule's id."),
    ("status", STRING, "pass, fail, warn or unverified (the check could not establish it)."),
    ("message", STRING, "The verdict in words."),
    ("line", INT, "The log line that is its evidence; null: none."),
    ("value", STRING, "The value found; null: none stated."),
    ("limit", STRING, "The limit it was held to; null: none."),
)

# The parser's counting columns (int64); the others are float64, NaN where a report could not
# measure a cost.
SERIES_COUNTS = frozenset({"rows", "line", "deleted", "queries"})
SERIES_FIELDS = tuple(field.name for field in fields(Series))
SERIES_COLUMNS: tuple[tuple[str, pa.DataType, str], ...] = (
    ("entry_id", INT, "The entry (entries.id)."),
    *((name, INT if name in SERIES_COUNTS else FLOAT, "") for name in SERIES_FIELDS),
)
SERIES_BATCH_ROWS = 1 << 16


def schema_of(columns: tuple[tuple[str, pa.DataType, str], ...]) -> pa.Schema:
    return pa.schema(
        [
            pa.field(name, kind, metadata={"description": meaning} if meaning else None)
            for name, kind, meaning in columns
        ]
    )


ENTRY_SCHEMA = schema_of(ENTRY_COLUMNS)
VERDICT_SCHEMA = schema_of(VERDICT_COLUMNS)
RANK_SCHEMA = schema_of(RANK_COLUMNS)
SERIES_SCHEMA = schema_of(SERIES_COLUMNS)


def rows_batch(schema: pa.Schema, rows: list[dict]) -> pa.RecordBatch:
    """Rows (dicts by column name) as one batch of `schema`; a missing key is null."""
    return pa.RecordBatch.from_pylist(rows, schema=schema)


def verdict_rows(
    *, entry_id: int, contest: str, rules_version: int | None, verdicts: list
) -> list[dict]:
    return [
        {
            "entry_id": entry_id,
            "contest": contest,
            "rules_version": rules_version,
            "rule": verdict.get("rule"),
            "status": verdict.get("status"),
            "message": verdict.get("message"),
            "line": verdict.get("line"),
            "value": _text_or_none(verdict.get("value")),
            "limit": _text_or_none(verdict.get("limit")),
        }
        for verdict in verdicts
    ]


def _text_or_none(value) -> str | None:
    return None if value is None else str(value)


class SeriesRows:
    """Reports of many entries gathered column by column (views of their series, no copy) and
    handed out as batches of exactly `batch_rows` reports, the last one smaller (`rest`): one
    conversion per column and batch, not per entry, and never more than a batch held besides
    the series being read."""

    def __init__(self, batch_rows: int = SERIES_BATCH_ROWS) -> None:
        self.batch_rows = batch_rows
        self._parts: list[tuple[int, dict[str, np.ndarray], int]] = []
        self._count = 0

    def add(self, entry_id: int, columns: dict[str, np.ndarray]) -> Iterator[pa.RecordBatch]:
        total = len(columns["rows"]) if "rows" in columns else 0
        start = 0
        while start < total:
            take = min(total - start, self.batch_rows - self._count)
            piece = {name: column[start : start + take] for name, column in columns.items()}
            self._parts.append((entry_id, piece, take))
            self._count += take
            start += take
            if self._count == self.batch_rows:
                yield self.rest()

    def rest(self) -> pa.RecordBatch:
        parts, count = self._parts, self._count
        self._parts, self._count = [], 0
        arrays = [
            pa.array(
                np.concatenate(
                    [np.full(n, entry_id, np.int64) for entry_id, _, n in parts]
                    or [np.empty(0, np.int64)]
                )
            )
        ]
        for name, kind, _ in SERIES_COLUMNS[1:]:
            dtype = np.int64 if kind == INT else np.float64
            present = [piece.get(name) is not None for _, piece, _ in parts]
            if not any(present):
                arrays.append(pa.nulls(count, type=kind))
                continue
            values = np.concatenate(
                [
                    piece[name].astype(dtype, copy=False) if has else np.zeros(n, dtype)
                    for (_, piece, n), has in zip(parts, present, strict=True)
                ]
            )
            mask = None
            if not all(present):  # a column this entry's log does not carry is null
                mask = np.concatenate(
                    [np.full(n, not has) for (_, _, n), has in zip(parts, present, strict=True)]
                )
            arrays.append(pa.array(values, type=kind, mask=mask))
        return pa.RecordBatch.from_arrays(arrays, schema=SERIES_SCHEMA)


# A spreadsheet runs a cell starting with one of these as a formula: entrants write them. The
# CSV guards them as the leaderboard's CSV does (a leading '); the Parquet files keep the text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(batch: pa.RecordBatch) -> pa.RecordBatch:
    """The batch with every text cell that a spreadsheet would run as a formula quoted, column
    by column in Arrow (a cell at a time in Python was most of a part's rerank)."""
    arrays = []
    for column, field in zip(batch.columns, batch.schema, strict=True):
        if pa.types.is_string(field.type) and len(column):
            formula = pc.starts_with(column, FORMULA_STARTS[0])
            for start in FORMULA_STARTS[1:]:
                formula = pc.or_(formula, pc.starts_with(column, start))
            quoted = pc.binary_join_element_wise("'", column, "")
            column = pc.if_else(formula, quoted, column)
        arrays.append(column)
    return pa.RecordBatch.from_arrays(arrays, schema=batch.schema)
