"""Bulk loading (seed 003, first post): a generated file of random 8-byte keys padded to a row
length, loaded with the keys in place (`iibench load`: LOAD DATA LOCAL INFILE, COPY or one
SQLite transaction). Figures: rows/s, key-value pairs/s (rows x keys) and MB/s. Entries rank
by rows/s within their class, "keys=K, row length=L": a 4-key 256-byte row is not a 1-key
64-byte row."""

from __future__ import annotations

from collections.abc import Mapping

from submissions.contests.rules import Entry, Rule, RuleSet, RuleVerdict, Status
from submissions.logparse.model import ParsedLog
from submissions.measures.numbers import number

from ..base import LOG_LOAD, SETUP, Ranking, Track, TrackColumn, TrackParameter
from .references import REFERENCES


def load_figures(log: ParsedLog | None, declared: Mapping, rules: RuleSet) -> dict:
    load = log.load
    return {
        "keys": load.keys,
        "row_length": load.row_length,
        "rows": load.rows,
        "rows_per_s": load.rows_per_s,
        "kv_pairs_per_s": load.kv_pairs_per_s,
        "mb_per_s": load.mb_per_s,
        "seconds": load.seconds,
    }


def class_key(figures: Mapping) -> str:
    # Fixed width, letters and digits only: the database and Python sort it alike.
    return f"k{int(figures['keys']):03d}l{int(figures['row_length']):07d}"


def class_label(key: str) -> str:
    return f"keys={int(key[1:4])}, row length={int(key[5:])}"


# --- rules --------------------------------------------------------------------------------


def check_load_stated(entry: Entry, rules: RuleSet) -> RuleVerdict:
    load = entry.log.load
    if not load.keys or not load.row_length:
        return RuleVerdict(
            "load_stated",
            Status.FAIL,
            "The load summary does not state its keys and row length: the class is unknown.",
            load.line,
        )
    return RuleVerdict(
        "load_stated",
        Status.PASS,
        f"The load states {load.keys} keys per row and {load.row_length}-byte rows.",
        load.line,
        f"keys={load.keys}, row length={load.row_length}",
    )


def check_keys_in_place(entry: Entry, rules: RuleSet) -> RuleVerdict:
    log = entry.log
    late = [index for index in log.indexes if index.created == "after_load"]
    if late or any(marker.kind == "indexes_created_after_load" for marker in log.markers):
        where = late[0].line if late else None
        return RuleVerdict(
            "keys_in_place",
            Status.FAIL,
            "A key was created after the load: the keys must be in place while rows go in.",
            where,
            "after the load",
            "in place during the load",
        )
    if not log.indexes:
        return RuleVerdict(
            "keys_in_place",
            Status.UNVERIFIED,
            "Unverified: declared by entrant. The log does not list the table's keys.",
        )
    names = [index.name for index in log.indexes]
    if len(names) < log.load.keys:
        return RuleVerdict(
            "keys_in_place",
            Status.FAIL,
            f"The load states {log.load.keys} keys but the table had {len(names)} "
            f"({', '.join(names)}) during the load.",
            log.indexes[0].line,
            str(len(names)),
            str(log.load.keys),
        )
    return RuleVerdict(
        "keys_in_place",
        Status.PASS,
        f"The table had its {len(names)} keys ({', '.join(names)}) before the first row.",
        log.indexes[0].line,
        "before the load",
        "in place during the load",
    )


def check_load_rows(entry: Entry, rules: RuleSet) -> RuleVerdict:
    rows, least = entry.log.load.rows, int(rules.track["min_rows"])
    status = Status.PASS if rows >= least else Status.FAIL
    relation = "at least" if status == Status.PASS else "fewer than"
    return RuleVerdict(
        "load_rows",
        status,
        f"The load inserted {number(rows)} rows: {relation} the {number(least)} required.",
        entry.log.load.line,
        number(rows),
        number(least),
    )


BULK_LOAD = Track(
    workload="bulk_load",
    label="Bulk loading",
    log=LOG_LOAD,
    figures=load_figures,
    # Bulk loading loads data by definition: "indexes from the start" becomes the track's
    # keys_in_place, and the insert run's rules (1B rows, commits, reports) do not apply.
    classic_rules=SETUP,
    rules=(
        Rule(
            "load_stated", "The load states its keys per row and its row length.", check_load_stated
        ),
        Rule(
            "keys_in_place",
            "The keys are in place during the load: no index is built afterwards.",
            check_keys_in_place,
        ),
        Rule("load_rows", "The load inserts at least {min_rows} rows.", check_load_rows),
    ),
    parameters=(
        TrackParameter(
            "min_rows",
            "Rows to load, at least",
            100_000_000,
            "Seed 003 loaded 100M rows, a data set that does not fit in memory.",
        ),
    ),
    ranking=Ranking(
        "rows/s",
        descending=True,
        metric=lambda figures: figures["rows_per_s"],
        class_key=class_key,
        class_label=class_label,
    ),
    columns=(
        TrackColumn("Rows/s", lambda f: f["rows_per_s"], "rate", metric=True),
        TrackColumn("KV pairs/s", lambda f: f["kv_pairs_per_s"], "rate"),
        TrackColumn("MB/s", lambda f: f["mb_per_s"], "mb"),
        TrackColumn("Rows", lambda f: f["rows"], "rows"),
    ),
    tiles=(
        TrackColumn("Rows/s", lambda f: f["rows_per_s"], "rate"),
        TrackColumn("Key-value pairs/s", lambda f: f["kv_pairs_per_s"], "rate"),
        TrackColumn("MB/s", lambda f: f["mb_per_s"], "mb"),
        TrackColumn("Rows loaded", lambda f: f["rows"], "rows"),
        TrackColumn("Load time", lambda f: f["seconds"], "seconds"),
    ),
    plot="load_rates",
    plot_title="Load rates beside the seed's, same class",
    plot_help=(
        "Rows/s, key-value pairs/s and MB/s of this load and of the seed's TokuDB loads of the "
        "same keys and row length."
    ),
    plot_references="same_class",
    ranked_by="Ranked by rows/s within each class (keys per row, row length), highest first.",
    unranked_reason="No load rate.",
    references=REFERENCES,
    # The contest `make run`'s demo data opens for this track (submissions/entries/demo.py).
    demo_contest={
        "slug": "bulk-load",
        "title": "Bulk loading: rows/s per keys and row length",
        "description": (
            "Seed 003's loader test: `iibench load` generates rows of random 8-byte keys padded "
            "to a row length and loads them with the keys in place. Ranked by rows/s within "
            "each class (keys per row, row length); at least 100,000 rows here, 100M in the seed."
        ),
        "track_rules": {"min_rows": 100_000},
    },
)
