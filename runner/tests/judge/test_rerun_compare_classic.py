import numpy as np
import pytest

from runner.judge.classic import compare_runs
from runner.judge.rerun import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED
from submissions.measures.terminal import seconds_at_rows as seconds_at

CLAIM_ROWS = np.array([1_000_000, 2_000_000, 3_000_000])
CLAIM_SECONDS = np.array([10.0, 25.0, 45.0])  # 100k/s, then 66.7k/s, then 50k/s


def test_seconds_at_interpolates_between_reports_from_zero():
    assert seconds_at(CLAIM_ROWS, CLAIM_SECONDS, 500_000) == pytest.approx(5.0)
    assert seconds_at(CLAIM_ROWS, CLAIM_SECONDS, 1_500_000) == pytest.approx(17.5)


def test_a_rerun_as_fast_as_the_claim_reproduces_it():
    result = compare_runs(
        CLAIM_ROWS, CLAIM_SECONDS, np.array([1_000_000, 2_000_000]), np.array([9.0, 24.0]), 0.25
    )
    assert result.verdict == REPRODUCED
    assert result.ratio == pytest.approx((2_000_000 / 24.0) / (2_000_000 / 25.0))
    assert "over the same 2,000,000 rows" in result.message


def test_a_rerun_much_slower_than_the_claim_does_not_reproduce_it():
    result = compare_runs(CLAIM_ROWS, CLAIM_SECONDS, np.array([2_000_000]), np.array([50.0]), 0.25)
    assert result.verdict == NOT_REPRODUCED
    assert result.ratio == pytest.approx(0.5)
    assert "more than 25% slower" in result.message


def test_a_short_rerun_is_compared_with_the_claims_first_report():
    result = compare_runs(CLAIM_ROWS, CLAIM_SECONDS, np.array([100_000]), np.array([1.0]), 0.25)
    assert result.verdict == REPRODUCED
    assert "first report, at 1,000,000 rows" in result.message
    assert result.ratio == pytest.approx(1.0)


def test_a_rerun_without_reports_is_inconclusive():
    result = compare_runs(
        CLAIM_ROWS, CLAIM_SECONDS, np.array([], dtype=np.int64), np.array([]), 0.25
    )
    assert result.verdict == INCONCLUSIVE
    assert result.ratio is None
