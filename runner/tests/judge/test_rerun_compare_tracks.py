import numpy as np
import pytest

from runner.judge.bulk_load import LoadFigures, compare_bulk_load
from runner.judge.crash_recovery import RecoveryFigures, compare_recovery
from runner.judge.fifo import compare_fifo, deletes_start_row, fifo_scale, terminal_rate
from runner.judge.pk_types import compare_key_types, key_type_ratios
from runner.judge.query import compare_queries, query_points
from runner.judge.rerun import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED

ROWS = np.array([1_000, 2_000, 3_000, 4_000])
SECONDS = np.array([0.1, 0.2, 0.5, 1.0])  # 10,000/s, then 3,333/s, then 2,000/s


def test_the_terminal_rate_is_over_the_last_rows_interpolated_between_reports():
    assert terminal_rate(ROWS, SECONDS, 1_000) == pytest.approx(2_000)
    assert terminal_rate(ROWS, SECONDS, 1_500) == pytest.approx(1_500 / (1.0 - 0.35))
    assert terminal_rate(ROWS[:0], SECONDS[:0], 1_000) is None


def test_deletes_begin_after_the_last_report_without_one():
    assert deletes_start_row(ROWS, np.array([0, 0, 1_000, 2_000])) == 2_000
    assert deletes_start_row(ROWS, np.zeros(4, dtype=np.int64)) is None
    assert deletes_start_row(ROWS, None) is None


SEED_002 = {
    "delete_after": 250_000_000,
    "deletes_start_row": 250_000_000,
    "terminal_insert_rate": 5_088.0,
    "terminal_window_rows": 10_000_000,
}
SCALE = fifo_scale(SEED_002, 500_000_000, 20_000)


def test_a_fifo_rerun_at_the_claims_terminal_rate_reproduces_it_and_says_how_it_was_scaled():
    result = compare_fifo(
        claimed=SEED_002, scale=SCALE, rerun_terminal_rate=5_000.0, rerun_deletes_start=10_000,
        tolerance=0.25,
    )  # fmt: skip
    assert result.verdict == REPRODUCED
    assert result.ratio == pytest.approx(5_000 / 5_088)
    assert (
        "deletes from row 10,000 on (the claim's 250,000,000 of 500,000,000 rows" in result.message
    )
    assert "over its last 1,000 rows" in result.message
    assert "25,000x smaller" in result.message


def test_a_fifo_rerun_far_below_the_claim_does_not_reproduce_it():
    result = compare_fifo(
        claimed=SEED_002, scale=SCALE, rerun_terminal_rate=204.0, rerun_deletes_start=10_000,
        tolerance=0.25,
    )  # fmt: skip
    assert result.verdict == NOT_REPRODUCED
    assert "more than 25% slower" in result.message


def test_a_fifo_rerun_that_never_deleted_is_inconclusive():
    result = compare_fifo(
        claimed=SEED_002, scale=SCALE, rerun_terminal_rate=5_000.0, rerun_deletes_start=None,
        tolerance=0.25,
    )  # fmt: skip
    assert result.verdict == INCONCLUSIVE
    assert result.ratio is None


def test_query_time_is_threads_over_the_query_rate():
    points = query_points(ROWS, np.array([0.0, 100.0, 50.0, 20.0]), threads=2)
    assert points == [[2_000, 0.02], [3_000, 0.04], [4_000, 0.1]]
    assert query_points(ROWS, None, threads=1) == []


LOGGED = {"points": [[2_000, 0.01], [3_000, 0.05], [1_000_000, 2.0]], "source": "log"}


def test_queries_are_compared_at_the_sizes_both_timed():
    rerun = [[1_000, 0.01], [2_000, 0.01], [3_000, 0.05], [4_000, 0.08]]
    result = compare_queries(claimed=LOGGED, rerun_points=rerun, tolerance=0.25)
    assert result.verdict == REPRODUCED
    assert result.ratio == pytest.approx(1.0)
    assert "At 2 table sizes both timed (up to 3,000 rows" in result.message


def test_queries_much_slower_than_claimed_do_not_reproduce_the_claim():
    rerun = [[1_000, 0.04], [4_000, 0.2]]
    result = compare_queries(claimed=LOGGED, rerun_points=rerun, tolerance=0.25)
    assert result.verdict == NOT_REPRODUCED


def test_queries_at_no_common_size_or_of_a_declared_query_are_inconclusive():
    far = {"points": [[125_000_000, 7.2], [202_000_000, 11.3]], "source": "log"}
    result = compare_queries(claimed=far, rerun_points=[[1_000, 0.01]], tolerance=0.25)
    assert result.verdict == INCONCLUSIVE
    assert "A rerun of at least 125,000,000 rows can be compared" in result.message
    declared = {**far, "source": "declared"}
    result = compare_queries(claimed=declared, rerun_points=[[1_000, 0.01]], tolerance=0.25)
    assert result.verdict == INCONCLUSIVE
    assert "a different query" in result.message


SEED_004 = {
    "runs": {
        "autoinc": {"minutes": 9.718, "rows": 500_000},
        "uuid-char": {"minutes": 14.52, "rows": 500_000},
        "uuid-ordered": {"minutes": 6.671, "rows": 500_000},
    },
    "ratios": {"uuid-char": 14.52 / 9.718, "uuid-ordered": 6.671 / 9.718},
}


def test_key_type_ratios_are_each_uuids_time_over_the_auto_increments():
    ratios = key_type_ratios(SEED_004["runs"])
    assert ratios == pytest.approx({"uuid-char": 1.494, "uuid-ordered": 0.686}, abs=1e-3)


def test_the_claims_shape_within_the_tolerance_reproduces_it():
    result = compare_key_types(
        claimed=SEED_004, rerun_ratios={"uuid-char": 1.3, "uuid-ordered": 0.75}, tolerance=0.25
    )
    assert result.verdict == REPRODUCED
    assert result.ratio == pytest.approx(1.3 / 1.494, abs=1e-3)  # the furthest from 1
    assert "1.30x with the CHAR(36) random UUID key (claim: 1.49x)" in result.message


def test_ordered_uuids_slower_than_auto_increment_do_not_reproduce_a_claim_they_are_faster():
    result = compare_key_types(
        claimed=SEED_004, rerun_ratios={"uuid-char": 1.5, "uuid-ordered": 1.1}, tolerance=0.25
    )
    assert result.verdict == NOT_REPRODUCED
    assert result.ratio == pytest.approx(1.1 / 0.686, abs=1e-2)


def test_ratios_come_from_the_claims_runs_when_it_states_none():
    claimed = {"runs": SEED_004["runs"]}
    result = compare_key_types(
        claimed=claimed, rerun_ratios={"uuid-char": 1.49, "uuid-ordered": 0.69}, tolerance=0.25
    )
    assert result.verdict == REPRODUCED
    assert (
        compare_key_types(claimed={}, rerun_ratios={"uuid-char": 1.0}, tolerance=0.25).verdict
        == INCONCLUSIVE
    )


LOAD = LoadFigures(
    keys=4, row_length=64, rows=20_000, rows_per_s=90_000.0, kv_pairs_per_s=360_000.0, mb_per_s=5.8
)


def test_a_load_as_fast_as_claimed_reproduces_it():
    claimed = {"keys": 4, "row_length": 64, "rows": 100_000_000, "rows_per_s": 82_000.0}
    result = compare_bulk_load(claimed=claimed, rerun=LOAD, tolerance=0.25)
    assert result.verdict == REPRODUCED
    assert result.ratio == pytest.approx(90_000 / 82_000)
    assert "360,000 key-value pairs/s, 5.8 MB/s" in result.message
    assert "5,000x smaller" in result.message


def test_a_load_much_slower_than_claimed_does_not_reproduce_it():
    result = compare_bulk_load(claimed={"rows_per_s": 142_000.0}, rerun=LOAD, tolerance=0.25)
    assert result.verdict == NOT_REPRODUCED
    assert compare_bulk_load(claimed={}, rerun=LOAD, tolerance=0.25).verdict == INCONCLUSIVE


def recovered(seconds: float, found: int = 4_000, engine: str = "InnoDB") -> RecoveryFigures:
    return RecoveryFigures(
        engine=engine, insert_rate=1_990.0, rows_at_crash=4_000, rows_committed=4_000,
        rows_found=found, recovery_seconds=seconds,
    )  # fmt: skip


CRASH = {
    "insert_rate": 2_000.0,
    "rows_at_crash": 250_000_000,
    "recovery_seconds": 13.0,
    "engine": "InnoDB",
}


def test_a_recovery_no_slower_than_claimed_reproduces_it():
    result = compare_recovery(claimed=CRASH, rerun=recovered(1.3), tolerance=0.25)
    assert result.verdict == REPRODUCED
    assert result.ratio == pytest.approx(10.0)
    assert (
        "recovered in 1.30 s with 4,000 rows found; the claim recovered in 13.0 s" in result.message
    )


def test_a_recovery_much_slower_than_claimed_does_not_reproduce_it():
    result = compare_recovery(
        claimed={**CRASH, "recovery_seconds": 2.0}, rerun=recovered(4.0), tolerance=0.25
    )
    assert result.verdict == NOT_REPRODUCED
    assert "more than 25% slower to recover than claimed" in result.message


def test_a_recovery_of_a_few_seconds_gets_an_absolute_floor_not_only_a_percentage():
    # 0.4 s claimed, 1.2 s measured: three times slower, but within a restart's own second.
    result = compare_recovery(
        claimed={**CRASH, "recovery_seconds": 0.4}, rerun=recovered(1.2), tolerance=0.25
    )
    assert result.verdict == REPRODUCED
    assert "and 1 s for a restart's own start-up" in result.message
    slower = compare_recovery(
        claimed={**CRASH, "recovery_seconds": 0.4}, rerun=recovered(1.6), tolerance=0.25
    )
    assert slower.verdict == NOT_REPRODUCED


def test_a_recovery_that_lost_committed_rows_is_inconclusive():
    result = compare_recovery(claimed=CRASH, rerun=recovered(1.0, found=3_000), tolerance=0.25)
    assert result.verdict == INCONCLUSIVE
    assert "holds 3,000 rows but 4,000 were committed" in result.message


def test_a_recovery_on_another_engine_says_so():
    result = compare_recovery(
        claimed={**CRASH, "engine": "TokuDB"}, rerun=recovered(1.0), tolerance=0.25
    )
    assert "The claim is TokuDB's; the rerun's server ran InnoDB" in result.message


def test_a_short_key_type_rerun_says_its_ratios_are_soft():
    rerun_runs = {"autoinc": {"minutes": 0.2 / 60, "rows": 5_000}}
    claimed = {**SEED_004, "runs": SEED_004["runs"]}
    result = compare_key_types(
        claimed=claimed, rerun_ratios={"uuid-char": 1.49, "uuid-ordered": 0.69}, tolerance=0.25,
        rerun_runs=rerun_runs,
    )  # fmt: skip
    assert "The auto-increment table took 0.20 s" in result.message
    assert "100x smaller" in result.message


@pytest.mark.parametrize(
    "claimed",
    [
        {"points": "lots", "ratios": [1, 2], "runs": {"autoinc": "fast"}},
        {"points": [[1_000], ["x", 0.1], [2_000, -1], None], "ratios": {"uuid-char": "NaN"}},
        {"terminal_insert_rate": "quick", "rows_per_s": None, "recovery_seconds": float("inf")},
    ],
)
def test_figures_that_are_not_what_they_should_be_make_a_comparison_inconclusive(claimed):
    rerun_points = [[1_000, 0.01], [4_000, 0.02]]
    assert (
        compare_queries(claimed=claimed, rerun_points=rerun_points, tolerance=0.25).verdict
        == INCONCLUSIVE
    )
    assert (
        compare_key_types(claimed=claimed, rerun_ratios={"uuid-char": 1.0}, tolerance=0.25).verdict
        == INCONCLUSIVE
    )
    assert compare_bulk_load(claimed=claimed, rerun=LOAD, tolerance=0.25).verdict == INCONCLUSIVE
    assert (
        compare_recovery(claimed=claimed, rerun=recovered(1.0), tolerance=0.25).verdict
        == INCONCLUSIVE
    )
    result = compare_fifo(
        claimed=claimed, scale=SCALE, rerun_terminal_rate=1.0, rerun_deletes_start=1, tolerance=0.25
    )
    assert result.verdict == INCONCLUSIVE
