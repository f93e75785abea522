"""A bulk-load rerun (seed 003): the benchmark's `load` of generated rows into the entry's
class (keys, row length), judged on the load rate. Pure."""

from __future__ import annotations

from dataclasses import dataclass

from submissions.logparse import LogError

from .rerun import (
    INCONCLUSIVE,
    Claim,
    Comparison,
    LoadPlan,
    NotPlannable,
    Repeat,
    Rerun,
    RerunOutput,
    RerunRequest,
    RerunSpec,
    Step,
    judge_each_repeat,
    load_arguments,
    positive,
    scale_caveat,
    speed_resolution,
    speed_verdict,
)

MAX_LOAD_KEYS = 32
STEP = "load"


def load_class(figures: dict) -> tuple[int, int]:
    """(keys, row length) of the entry's load: the class it ranks in."""
    try:
        keys, row_length = int(figures["keys"]), int(figures["row_length"])
    except (KeyError, TypeError, ValueError):
        raise NotPlannable(
            "The entry states no bulk-load class (keys and row length) to rerun."
        ) from None
    if not 1 <= keys <= MAX_LOAD_KEYS or row_length <= 8 * keys:
        raise NotPlannable(
            f"The entry's load class ({keys} keys, {row_length}-byte rows) is not one the "
            f"benchmark can generate: 1 to {MAX_LOAD_KEYS} keys of 8 bytes and a row longer "
            "than its keys."
        )
    return keys, row_length


def steps(spec: RerunSpec) -> list[Step]:
    keys, row_length = load_class(spec.figures)
    plan = spec.plan
    load = LoadPlan(
        binary=plan.binary,
        db_url=plan.db_url,
        keys=keys,
        row_length=row_length,
        rows=plan.rows,
        seed=plan.seed,
        out_dir=spec.scratch_dir,
        engine=plan.engine,
    )
    description = f"bulk load of {plan.rows:,} rows, {keys} keys, {row_length}-byte rows"
    return [Step(STEP, description, load_arguments(load), plan.rows)]


def refusal(request: RerunRequest) -> str | None:
    try:
        load_class(request.figures)
    except NotPlannable as reason:
        return str(reason)
    return None


@dataclass(frozen=True)
class LoadFigures:
    keys: int
    row_length: int
    rows: int
    rows_per_s: float
    kv_pairs_per_s: float
    mb_per_s: float


def load_figures(output: RerunOutput) -> LoadFigures:
    load = output.logs[STEP].load
    if load is None:
        raise LogError("the load printed no `# summary ... mode=load` line")
    return LoadFigures(
        keys=load.keys,
        row_length=load.row_length,
        rows=load.rows,
        rows_per_s=load.rows_per_s,
        kv_pairs_per_s=load.kv_pairs_per_s,
        mb_per_s=load.mb_per_s,
    )


def load_result(figures: LoadFigures) -> dict:
    return {
        "keys": figures.keys,
        "row_length": figures.row_length,
        "rows": figures.rows,
        "rows_per_s": figures.rows_per_s,
        "kv_pairs_per_s": figures.kv_pairs_per_s,
        "mb_per_s": figures.mb_per_s,
        "summary": (
            f"loaded {figures.rows:,} rows at {figures.rows_per_s:,.0f} rows/s "
            f"({figures.kv_pairs_per_s:,.0f} key-value pairs/s, {figures.mb_per_s:,.1f} MB/s)"
        ),
    }


def compare_bulk_load(*, claimed: dict, rerun: LoadFigures, tolerance: float) -> Comparison:
    claimed_rate = positive(claimed.get("rows_per_s"))
    if claimed_rate is None:
        return Comparison(INCONCLUSIVE, None, "The entry states no load rate (rows/s).")
    ratio = rerun.rows_per_s / claimed_rate
    verdict, outcome = speed_verdict(ratio, tolerance)
    claimed_rows = int(positive(claimed.get("rows")) or 0)
    message = (
        f"Loading {rerun.rows:,} rows of {rerun.keys} keys and {rerun.row_length} bytes, the "
        f"rerun ran at {rerun.rows_per_s:,.0f} rows/s ({rerun.kv_pairs_per_s:,.0f} key-value "
        f"pairs/s, {rerun.mb_per_s:,.1f} MB/s); the claim, {claimed_rate:,.0f} rows/s"
        f"{f' over {claimed_rows:,} rows' if claimed_rows else ''}. Ratio {ratio:.2f} "
        f"(tolerance {tolerance:.0%}): {outcome}."
    )
    if claimed_rows:
        message += scale_caveat(claimed_rows / rerun.rows, "a small load's indexes fit in memory")
    return Comparison(verdict, ratio, message)


def judge_one(claim: Claim, output: RerunOutput, tolerance: float) -> Repeat:
    figures = load_figures(output)
    comparison = compare_bulk_load(claimed=claim.figures, rerun=figures, tolerance=tolerance)
    return Repeat(comparison, load_result(figures), figures.rows, figures.rows_per_s)


judge = judge_each_repeat(judge_one, resolution=speed_resolution("its load rate"))


RERUN = Rerun(judge=judge, steps=steps, refusal=refusal)
