"""What the other tracks' verifications could refute: each verdict states it in words and in
the result's `resolution` (the classic judge's keys), and a claim just past it is refuted while
one just within it is not."""

import pytest

from runner.judge import crash_recovery as crash
from runner.judge import pk_types
from runner.judge.bulk_load import LoadFigures, compare_bulk_load
from runner.judge.rerun import (
    NOT_REPRODUCED,
    REPRODUCED,
    VERIFICATION,
    Claim,
    Repeat,
    RerunOutput,
    judge_repeats,
    speed_resolution,
)


def loaded(rows_per_s: float) -> LoadFigures:
    return LoadFigures(
        keys=4, row_length=64, rows=20_000, rows_per_s=rows_per_s, kv_pairs_per_s=0, mb_per_s=0
    )


def judge_loads(claimed_rate: float, rates: list[float]):
    """A bulk-load verification of three repeats, judged as the track judges them."""

    def judge_one(rate: float) -> Repeat:
        comparison = compare_bulk_load(
            claimed={"rows_per_s": claimed_rate}, rerun=loaded(rate), tolerance=0.25
        )
        return Repeat(comparison, {"rows_per_s": rate})

    resolution = speed_resolution("its load rate")
    return judge_repeats(
        rates,
        judge_one,
        kind=VERIFICATION,
        host_comparable=True,
        resolution=lambda repeats: resolution(repeats, 0.25),
    )


def test_a_speed_tracks_verdict_states_the_smallest_factor_too_fast_it_refutes():
    rates = [90_000.0, 100_000.0, 110_000.0]
    # Best over median over (1 - tolerance): 1.1 / 0.75.
    judged = judge_loads(100_000.0, rates)
    assert judged.verdict == REPRODUCED
    assert judged.result["resolution"] == {
        "too_fast_factor": 1.47,
        "cliff_shift": None,
        "basis": "its load rate against these runs', within 25%",
    }
    assert "would have refuted a claim 1.47x too fast (its load rate" in judged.message
    assert judge_loads(100_000.0 * 1.45, rates).verdict == REPRODUCED
    assert judge_loads(100_000.0 * 1.48, rates).verdict == NOT_REPRODUCED


def recovery(seconds: float) -> RerunOutput:
    result = {
        "engine": "InnoDB", "insert_rate": 2_000.0, "rows_at_crash": 4_000,
        "rows_committed": 4_000, "rows_found": 4_000, "recovery_seconds": seconds,
    }  # fmt: skip
    return RerunOutput(logs={}, spec=None, rows_target=4_000, result=result)


def judge_recovery(claimed_seconds: float, measured: list[float]):
    claim = Claim(figures={"recovery_seconds": claimed_seconds}, rows=4_000)
    return crash.judge(
        claim, [recovery(each) for each in measured], kind=VERIFICATION, tolerance=0.25
    )


def test_a_recovery_verdict_states_its_factor_with_the_restarts_own_second():
    # Median 4.5 s over ((fastest 4.0 s - 1 s) * 0.75): 2.0.
    judged = judge_recovery(4.5, [4.0, 5.0])
    assert judged.result["resolution"]["too_fast_factor"] == pytest.approx(2.0)
    assert "would have refuted a claim 2.00x too fast (its recovery time" in judged.message
    assert judge_recovery(4.5 / 1.9, [4.0, 5.0]).verdict == REPRODUCED
    assert judge_recovery(4.5 / 2.1, [4.0, 5.0]).verdict == NOT_REPRODUCED


def test_a_recovery_within_a_restarts_own_second_states_no_factor_and_says_why():
    judged = judge_recovery(0.5, [0.8, 0.9])
    assert judged.verdict == REPRODUCED
    assert judged.result["resolution"]["too_fast_factor"] is None
    assert "Resolution not stated: the rerun recovered in 0.80 s, within the 1 s" in (
        judged.message
    )


def test_the_key_types_track_states_no_factor_too_fast_and_says_why():
    stated = pk_types.resolution([], 0.25)
    assert stated.as_dict()["too_fast_factor"] is None
    assert stated.as_dict()["cliff_shift"] is None
    assert stated.text().startswith("Resolution not stated: this track compares the key types'")
    assert "a ratio more than 25% off the repeats' is refuted" in stated.text()
