"""A query-scalability rerun (seed 001): inserts with query threads walking the index, judged
on the time per query at the table sizes both timed. Pure."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from submissions.measures.numbers import query_time

from .rerun import (
    INCONCLUSIVE,
    Claim,
    Comparison,
    Repeat,
    Rerun,
    RerunOutput,
    RerunSpec,
    Step,
    benchmark_arguments,
    column,
    curve,
    judge_each_repeat,
    pairs,
    repeat_of,
    speed_resolution,
    speed_verdict,
    stated,
)

STEP = "queries"


def steps(spec: RerunSpec) -> list[Step]:
    threads = max(1, spec.options.query_threads)
    plan = replace(spec.plan, query_threads=threads)
    description = f"inserts with {threads} query thread{'s' if threads > 1 else ''}"
    return [Step(STEP, description, benchmark_arguments(plan), plan.rows)]


def query_points(
    rows: np.ndarray, interval_query_rate: np.ndarray | None, threads: int
) -> list[list[float]]:
    """[rows, seconds per query] at each report: each thread runs one query after another, so
    a query took threads / (queries per second) on average over the interval."""
    if interval_query_rate is None or threads < 1:
        return []
    return [
        [int(at), threads / float(rate)]
        for at, rate in zip(rows, interval_query_rate, strict=True)
        if rate > 0
    ]


def measured(output: RerunOutput) -> dict:
    parsed = output.logs[STEP]
    rows, _ = curve(parsed)
    threads = stated(parsed, "query_threads")
    points = query_points(rows, column(parsed.series.interval_query_rate), threads)
    summary = (
        f"{points[-1][1] * 1000:,.2f} ms per query at {points[-1][0]:,} rows "
        f"({threads} query thread{'s' if threads != 1 else ''})"
        if points
        else "no query completed"
    )
    return {"points": points, "query_threads": threads, "source": "rerun", "summary": summary}


def compare_queries(*, claimed: dict, rerun_points: list, tolerance: float) -> Comparison:
    if claimed.get("source") == "declared":
        return Comparison(
            INCONCLUSIVE,
            None,
            "The entry declares the times of its own query; the rerun times the benchmark's "
            "index walks (LIMIT 10 from a random point), a different query, so the two "
            "cannot be compared.",
        )
    points = pairs(claimed.get("points"))
    if not points:
        return Comparison(INCONCLUSIVE, None, "The entry states no query times.")
    if not rerun_points:
        return Comparison(INCONCLUSIVE, None, "The rerun completed no queries to time.")
    rerun = np.array(rerun_points, dtype=np.float64)
    low, high = rerun[0, 0], rerun[-1, 0]
    comparable = [(r, s) for r, s in points if low <= r <= high]
    if not comparable:
        return Comparison(
            INCONCLUSIVE,
            None,
            f"The claim's query times are at {points[0][0]:,.0f} to {points[-1][0]:,.0f} rows; "
            f"the rerun timed queries at {low:,.0f} to {high:,.0f} rows: no size in common. "
            f"A rerun of at least {points[0][0]:,.0f} rows can be compared.",
        )
    ratios = [s / float(np.interp(r, rerun[:, 0], rerun[:, 1])) for r, s in comparable]
    ratio = float(np.median(ratios))
    verdict, outcome = speed_verdict(ratio, tolerance)
    last_rows, last_seconds = comparable[-1]
    rerun_last = float(np.interp(last_rows, rerun[:, 0], rerun[:, 1]))
    message = (
        f"At {len(comparable)} table size{'s' if len(comparable) > 1 else ''} both timed "
        f"(up to {last_rows:,.0f} rows: rerun {query_time(rerun_last)}, claim "
        f"{query_time(last_seconds)} per query), the claim's query time over the rerun's has a "
        f"median of {ratio:.2f} (tolerance {tolerance:.0%}): {outcome}."
    )
    return Comparison(verdict, ratio, message)


def judge_one(claim: Claim, output: RerunOutput, tolerance: float) -> Repeat:
    result = measured(output)
    comparison = compare_queries(
        claimed=claim.figures, rerun_points=result["points"], tolerance=tolerance
    )
    return repeat_of(comparison, result, output)


judge = judge_each_repeat(
    judge_one, resolution=speed_resolution("its query times at the sizes both timed")
)


RERUN = Rerun(judge=judge, steps=steps)
