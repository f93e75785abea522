"""A primary-key-types rerun (seed 004): the same run with three kinds of key, one after
another, judged on the shape (each UUID key's time over the auto-increment key's), which
carries across hardware better than times do. Pure."""

from __future__ import annotations

import math
from dataclasses import replace

from submissions.measures.numbers import short_seconds

from .rerun import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    REPRODUCED,
    Claim,
    Comparison,
    Repeat,
    Rerun,
    RerunOutput,
    RerunSpec,
    StatedResolution,
    Step,
    benchmark_arguments,
    column,
    curve,
    judge_each_repeat,
    mapping,
    positive,
    progress,
    scale_caveat,
)

# Seed 004's three tables, in the order it ran them (the first is the ratios' denominator).
KEY_TYPES = ("autoinc", "uuid-char", "uuid-ordered")
KEY_TYPE_NAMES = {
    "autoinc": "auto-increment key",
    "uuid-char": "CHAR(36) random UUID key",
    "uuid-ordered": "BINARY(16) time-ordered UUID key",
}
SEED_004_READER_PAUSE_MS = 100
# A table inserted faster than this is timed as much on start-up (connections, the first
# pages) as on its key.
SHORT_KEY_TYPE_SECONDS = 10


def steps(spec: RerunSpec) -> list[Step]:
    options = spec.options
    found = []
    for kind in KEY_TYPES:
        plan = replace(
            spec.plan,
            pk=kind,
            writers=max(1, options.writers),
            readers=max(0, options.readers),
            reader_pause_ms=SEED_004_READER_PAUSE_MS,
        )
        description = (
            f"{KEY_TYPE_NAMES[kind]} (--pk {kind}), {plan.writers} writers, {plan.readers} readers"
        )
        found.append(Step(kind, description, benchmark_arguments(plan), plan.rows))
    return found


def key_type_run(parsed) -> dict:
    """One table of seed 004: its time, rows, write and read (range scan) rates."""
    rows, seconds = curve(parsed)
    totals = parsed.totals
    done_rows = int(totals.rows if totals and totals.rows else (rows[-1] if len(rows) else 0))
    elapsed = float(
        totals.seconds if totals and totals.seconds else (seconds[-1] if len(seconds) else 0)
    )
    queries = column(parsed.series.queries)
    scans = int(queries[-1]) if queries is not None and len(queries) else 0
    return {
        "minutes": elapsed / 60,
        "rows": done_rows,
        "write_rate": done_rows / elapsed if elapsed > 0 else None,
        "read_rate": scans / elapsed if elapsed > 0 else None,
    }


def key_type_ratios(runs: dict) -> dict[str, float]:
    """Each UUID kind's time over the auto-increment key's, for the same rows."""
    runs = mapping(runs)
    base = positive(mapping(runs.get("autoinc")).get("minutes"))
    if base is None:
        return {}
    ratios = {}
    for kind in KEY_TYPES[1:]:
        minutes = positive(mapping(runs.get(kind)).get("minutes"))
        if minutes is not None:
            ratios[kind] = minutes / base
    return ratios


def key_type_figures(runs: dict, writers: int, readers: int) -> dict:
    ratios = key_type_ratios(runs)
    parts = [
        f"{kind} {short_seconds(runs[kind]['minutes'] * 60)}" for kind in KEY_TYPES if kind in runs
    ]
    shape = ", ".join(f"{kind}/autoinc {ratio:.2f}" for kind, ratio in ratios.items())
    return {
        "runs": runs,
        "ratios": ratios,
        "writers": writers,
        "readers": readers,
        "summary": f"{'; '.join(parts)} ({shape})" if shape else "; ".join(parts),
    }


def compare_key_types(
    *, claimed: dict, rerun_ratios: dict, tolerance: float, rerun_runs: dict | None = None
) -> Comparison:
    stated = mapping(claimed.get("ratios")) or key_type_ratios(claimed.get("runs"))
    claimed_ratios = {kind: positive(value) for kind, value in stated.items() if positive(value)}
    kinds = [kind for kind in KEY_TYPES[1:] if kind in claimed_ratios and kind in rerun_ratios]
    if not kinds:
        return Comparison(
            INCONCLUSIVE, None, "The entry states no UUID / auto-increment time ratios."
        )
    # Ratio of ratios: 1.0 when the rerun shows the claim's shape exactly.
    shape = {kind: rerun_ratios[kind] / claimed_ratios[kind] for kind in kinds}
    worst = max(shape.values(), key=lambda value: abs(math.log(value)))
    reproduced = all(abs(value - 1.0) <= tolerance for value in shape.values())
    verdict = REPRODUCED if reproduced else NOT_REPRODUCED
    parts = [
        f"{rerun_ratios[kind]:.2f}x with the {KEY_TYPE_NAMES[kind]} (claim: "
        f"{claimed_ratios[kind]:.2f}x)"
        for kind in kinds
    ]
    outcome = (
        "reproduced"
        if reproduced
        else f"not reproduced: a ratio differs from the claim's by more than {tolerance:.0%}"
    )
    message = (
        f"Relative to the auto-increment key, the rerun took {' and '.join(parts)}. The ratios "
        "are the result's shape, which carries across hardware better than times do; the "
        f"furthest is {worst:.2f} of the claim's (tolerance {tolerance:.0%}): {outcome}."
    ) + _key_type_caveats(mapping(claimed.get("runs")), rerun_runs or {})
    return Comparison(verdict, worst, message)


def _key_type_caveats(claimed_runs: dict, rerun_runs: dict) -> str:
    rerun_base = mapping(rerun_runs.get("autoinc"))
    caveat = ""
    rerun_minutes = positive(rerun_base.get("minutes"))
    if rerun_minutes is not None and rerun_minutes * 60 < SHORT_KEY_TYPE_SECONDS:
        caveat += (
            f" The auto-increment table took {rerun_minutes * 60:,.2f} s: a run this short is "
            "timed as much on start-up as on its key, so ask for more rows for a firmer shape."
        )
    claimed_rows = positive(mapping(claimed_runs.get("autoinc")).get("rows"))
    rerun_rows = positive(rerun_base.get("rows"))
    if claimed_rows and rerun_rows:
        caveat += scale_caveat(claimed_rows / rerun_rows, "a small table's keys fit in memory")
    return caveat


def judge_one(claim: Claim, output: RerunOutput, tolerance: float) -> Repeat:
    runs = {key: key_type_run(output.logs[key]) for key in KEY_TYPES}
    options = output.spec.options
    result = key_type_figures(runs, options.writers, options.readers)
    comparison = compare_key_types(
        claimed=claim.figures,
        rerun_ratios=result["ratios"],
        tolerance=tolerance,
        rerun_runs=runs,
    )
    return Repeat(comparison, result, *progress(output.logs[KEY_TYPES[-1]]))


def resolution(repeats: list[Repeat], tolerance: float) -> StatedResolution:
    """Not a speed: the key types' time ratios are a shape, so no factor too fast is stated."""
    return StatedResolution(
        None,
        "this track compares the key types' time ratios (a shape), not a speed, so no claim "
        f"too fast can be named; a ratio more than {tolerance:.0%} off the repeats' is refuted",
    )


# A shape, not a speed: on a host unlike the entry's it still says something.
judge = judge_each_repeat(
    judge_one,
    absolute=False,
    closeness=lambda ratio: -abs(math.log(ratio)),
    resolution=resolution,
)


RERUN = Rerun(judge=judge, steps=steps)
