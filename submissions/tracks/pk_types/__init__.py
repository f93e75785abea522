"""Primary-key types (seed 004): the same table and load with three primary keys, BIGINT
auto-increment, CHAR(36) random UUID and BINARY(16) time-ordered UUID, writers and readers
running together. One entry holds the three runs: the seed's metrics-console output or three
runs of the C benchmark with `--pk`.

Ranked by the time of the ordered-UUID run over the auto-increment run, lowest first. That
ratio is what the seed measures (what a UUID key costs against the baseline, 0.69 in its test
1) and it does not depend on how fast the machine is; the total time would mostly rank the
hardware. Both runs must do the same work (same rows, same batches) for the ratio to count."""

from __future__ import annotations

from collections.abc import Mapping

from submissions.contests.rules import Entry, Rule, RuleSet, RuleVerdict, Status
from submissions.logparse.model import KeyTypeRun, ParsedLog
from submissions.measures.numbers import number

from ..base import LOG_KEY_TYPES, SETUP, Ranking, Track, TrackColumn
from .references import REFERENCES

KEY_TYPES = ("autoinc", "uuid-char", "uuid-ordered")
# The seed's table names and the C benchmark's --pk kinds, to the registry's key types.
KEY_TYPE_NAMES = {
    "BASELINE": "autoinc",
    "UUID_CHAR": "uuid-char",
    "UUID_OPTIMIZED": "uuid-ordered",
    "autoinc": "autoinc",
    "uuid-char": "uuid-char",
    "uuid-ordered": "uuid-ordered",
}
KEY_TYPE_LABELS = {
    "autoinc": "BIGINT auto-increment",
    "uuid-char": "CHAR(36) UUID",
    "uuid-ordered": "ordered BINARY(16) UUID",
}


def judged_runs(log: ParsedLog) -> tuple[str, list[KeyTypeRun]]:
    """The runs one entry is judged on, and the test they come from. The seed's write-up holds
    several tests of three tables each: the first test with all three key types is judged."""
    groups: dict[str, list[KeyTypeRun]] = {}
    for run in log.key_type_runs:
        groups.setdefault(run.group, []).append(run)
    for group, runs in groups.items():
        if {KEY_TYPE_NAMES.get(run.name) for run in runs} >= set(KEY_TYPES):
            return group, runs
    group = next(iter(groups), "")
    return group, groups.get(group, [])


def run_figures(run: KeyTypeRun) -> dict:
    seconds = run.minutes * 60
    return {
        "minutes": run.minutes,
        "rows": run.rows,
        "write_rate": run.rows / seconds if seconds > 0 else None,
        "read_rate": run.reads.mean_rate if run.reads is not None else None,
    }


def pk_figures(log: ParsedLog | None, declared: Mapping, rules: RuleSet) -> dict:
    group, judged = judged_runs(log)
    runs: dict[str, dict] = {}
    for run in judged:
        kind = KEY_TYPE_NAMES.get(run.name)
        if kind is not None:
            runs.setdefault(kind, run_figures(run))
    baseline = runs.get("autoinc", {}).get("minutes")
    ratios = {
        kind: runs[kind]["minutes"] / baseline
        for kind in ("uuid-char", "uuid-ordered")
        if kind in runs and baseline
    }
    figures = {"runs": runs, "ratios": ratios}
    if group:
        figures["group"] = group
    return figures


# --- rules --------------------------------------------------------------------------------


def check_key_types_present(entry: Entry, rules: RuleSet) -> RuleVerdict:
    _, judged = judged_runs(entry.log)
    found = {KEY_TYPE_NAMES[run.name]: run for run in judged if run.name in KEY_TYPE_NAMES}
    missing = [kind for kind in KEY_TYPES if kind not in found]
    tests = {run.group for run in entry.log.key_type_runs}
    if missing:
        return RuleVerdict(
            "key_types_present",
            Status.FAIL,
            f"No run with the {', '.join(KEY_TYPE_LABELS[kind] for kind in missing)} key: "
            "an entry holds the three runs (BASELINE, UUID_CHAR, UUID_OPTIMIZED or "
            "--pk autoinc, uuid-char, uuid-ordered).",
            value=", ".join(sorted(found)) or "none",
            limit=", ".join(KEY_TYPES),
        )
    first = found["autoinc"]
    note = (
        f" The log holds {len(tests)} tests; the first complete one is judged: {first.group}."
        if len(tests) > 1
        else ""
    )
    return RuleVerdict(
        "key_types_present",
        Status.PASS,
        "All three key types ran: "
        + ", ".join(f"{found[kind].name} ({KEY_TYPE_LABELS[kind]})" for kind in KEY_TYPES)
        + "."
        + note,
        first.line,
        ", ".join(KEY_TYPES),
    )


def check_same_work(entry: Entry, rules: RuleSet) -> RuleVerdict:
    _, judged = judged_runs(entry.log)
    runs = [run for run in judged if run.name in KEY_TYPE_NAMES]
    if not runs:
        return RuleVerdict("same_work", Status.FAIL, "No key-type run to compare.")
    base = runs[0]
    for run in runs[1:]:
        if run.rows != base.rows:
            return RuleVerdict(
                "same_work",
                Status.FAIL,
                f"{run.name} inserted {number(run.rows)} rows, {base.name} {number(base.rows)}: "
                "the key types are compared on the same rows.",
                run.line,
                number(run.rows),
                number(base.rows),
            )
        if run.writes and base.writes and run.writes.count != base.writes.count:
            return RuleVerdict(
                "same_work",
                Status.FAIL,
                f"{run.name} wrote in {run.writes.count:,} batches, {base.name} in "
                f"{base.writes.count:,}: the key types are compared on the same batches.",
                run.line,
                f"{run.writes.count:,}",
                f"{base.writes.count:,}",
            )
    batches = f" in {base.writes.count:,} batches" if base.writes else ""
    return RuleVerdict(
        "same_work",
        Status.PASS,
        f"Each key type inserted {number(base.rows)} rows{batches}.",
        base.line,
        number(base.rows),
    )


def _ratio(kind: str):
    return lambda figures: figures["ratios"][kind]


def _minutes(kind: str):
    return lambda figures: figures["runs"][kind]["minutes"]


def minutes_side_by_side(figures: Mapping) -> str:
    """The three runs' minutes in one cell, autoinc / uuid-char / uuid-ordered."""
    runs = figures["runs"]
    return " / ".join(f"{runs[kind]['minutes']:.3g}" if kind in runs else "—" for kind in KEY_TYPES)


PK_TYPES = Track(
    workload="pk_types",
    label="Primary-key types",
    log=LOG_KEY_TYPES,
    figures=pk_figures,
    # The runs are reports of a different benchmark: the classic insert-run rules (rows per
    # commit, a report every 1M rows, the target) do not describe them.
    classic_rules=SETUP,
    rules=(
        Rule(
            "key_types_present",
            "The entry holds the three key types: BIGINT auto-increment, CHAR(36) UUID, ordered BINARY(16) UUID.",
            check_key_types_present,
        ),
        Rule(
            "same_work",
            "Each key type inserts the same rows in the same batches.",
            check_same_work,
        ),
    ),
    ranking=Ranking(
        "ordered UUID time / auto-increment time",
        descending=False,
        metric=_ratio("uuid-ordered"),
    ),
    columns=(
        TrackColumn("uuid-ordered / autoinc", _ratio("uuid-ordered"), "ratio", metric=True),
        TrackColumn("uuid-char / autoinc", _ratio("uuid-char"), "ratio"),
        TrackColumn("Minutes: autoinc / char / ordered", minutes_side_by_side, "text"),
    ),
    tiles=(
        TrackColumn("Auto-increment", _minutes("autoinc"), "minutes"),
        TrackColumn("CHAR(36) UUID", _minutes("uuid-char"), "minutes"),
        TrackColumn("Ordered UUID", _minutes("uuid-ordered"), "minutes"),
        TrackColumn("uuid-char / autoinc", _ratio("uuid-char"), "ratio"),
        TrackColumn("uuid-ordered / autoinc", _ratio("uuid-ordered"), "ratio"),
    ),
    plot="key_type_bars",
    plot_title="Time and rates per key type",
    plot_help=(
        "Each key type's run: minutes, rows written per second and range scans per second, "
        "with the UUID runs' time over the auto-increment run's."
    ),
    ranked_by=(
        "Ranked by the ordered-UUID run's time over the auto-increment run's, lowest first: "
        "what the key type costs, whatever the machine."
    ),
    unranked_reason="No ordered-UUID and auto-increment runs to compare.",
    references=REFERENCES,
    # The contest `make run`'s demo data opens for this track (submissions/entries/demo.py).
    demo_contest={
        "slug": "pk-types",
        "title": "Primary-key types: auto-increment vs UUIDs",
        "description": (
            "Seed 004: the same load into three tables that differ only by their primary key "
            "(BIGINT auto-increment, CHAR(36) random UUID, BINARY(16) ordered UUID), writers and "
            "readers together. Ranked by the ordered-UUID time over the auto-increment time."
        ),
    },
)
