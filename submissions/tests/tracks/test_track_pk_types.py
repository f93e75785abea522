"""The primary-key-types track (seed 004): three runs per entry, from the metrics console or
the C benchmark's `--pk` runs."""

from pathlib import Path

import pytest

from submissions.contests.rules import Status
from submissions.tracks.pk_types.references import REFERENCES as PK_RESULTS
from testing.judging import judge_track
from testing.logs import c_pk_run, metrics_console_log

DEMO_LOGS = Path(__file__).resolve().parents[2] / "demo_logs"
SEED_TEST_1 = (
    ("BASELINE", 9.718, 500_000, 75.99),
    ("UUID_CHAR", 14.52, 500_000, 30.89),
    ("UUID_OPTIMIZED", 6.671, 500_000, 68.00),
)


def test_it_maps_the_seeds_tables_to_key_types_with_their_rates_and_ratios():
    judged = judge_track("pk_types", metrics_console_log(*SEED_TEST_1))

    runs = judged.figures["runs"]
    assert set(runs) == {"autoinc", "uuid-char", "uuid-ordered"}
    assert runs["autoinc"] == {
        "minutes": 9.718,
        "rows": 500_000,
        "write_rate": pytest.approx(500_000 / (9.718 * 60)),
        "read_rate": 75.99,
    }
    assert judged.figures["ratios"] == {
        "uuid-char": pytest.approx(14.52 / 9.718),
        "uuid-ordered": pytest.approx(6.671 / 9.718),
    }
    assert judged.metric == pytest.approx(0.686, abs=0.001)


def test_three_c_benchmark_runs_one_after_another_make_one_entry():
    log = c_pk_run("autoinc", 60.0) + c_pk_run("uuid-char", 90.0) + c_pk_run("uuid-ordered", 45.0)

    judged = judge_track("pk_types", log)

    assert judged.figures["runs"]["uuid-char"] == {
        "minutes": 1.5,
        "rows": 100_000,
        "write_rate": pytest.approx(100_000 / 90),
        "read_rate": pytest.approx(400 / 90),
    }
    assert judged.figures["ratios"] == {"uuid-char": 1.5, "uuid-ordered": 0.75}
    assert judged.verdicts["key_types_present"].status == Status.PASS
    assert judged.verdicts["key_types_present"].line == 8  # the autoinc run's `# param pk`
    assert judged.verdicts["same_work"].status == Status.PASS


def test_it_fails_an_entry_missing_a_key_type():
    judged = judge_track("pk_types", metrics_console_log(*SEED_TEST_1[:2]))

    verdict = judged.verdicts["key_types_present"]
    assert verdict.status == Status.FAIL
    assert verdict.message.startswith("No run with the ordered BINARY(16) UUID key")
    assert judged.metric is None


def test_it_fails_key_types_compared_on_different_rows():
    runs = (*SEED_TEST_1[:2], ("UUID_OPTIMIZED", 1.546, 100_000, 208.22))

    verdict = judge_track("pk_types", metrics_console_log(*runs)).verdicts["same_work"]

    assert verdict.status == Status.FAIL
    assert verdict.message == (
        "UUID_OPTIMIZED inserted 100,000 rows, BASELINE 500,000: the key types are compared "
        "on the same rows."
    )


def test_it_fails_c_runs_that_write_in_different_batches():
    log = c_pk_run("autoinc", 60.0) + c_pk_run("uuid-char", 90.0)
    log += c_pk_run("uuid-ordered", 45.0).replace(b"rows_per_commit=1000", b"rows_per_commit=10000")

    verdict = judge_track("pk_types", log).verdicts["same_work"]

    assert verdict.status == Status.FAIL
    assert "wrote in 10 batches, autoinc in 100" in verdict.message


def test_the_seeds_write_up_is_judged_on_its_first_complete_test():
    seed = (DEMO_LOGS / "seed-004-pk-types.md").read_bytes()

    judged = judge_track("pk_types", seed)

    assert judged.figures["group"].startswith("test 1")
    assert judged.figures["runs"]["uuid-ordered"]["minutes"] == 6.671
    assert "holds 6 tests; the first complete one is judged" in (
        judged.verdicts["key_types_present"].message
    )


def test_the_published_reference_rows_match_the_seed_as_the_parser_reads_it():
    seed = (DEMO_LOGS / "seed-004-pk-types.md").read_bytes()
    test_1 = next(result for result in PK_RESULTS if result.label.startswith("Seed 004 test 1"))

    judged = judge_track("pk_types", seed)

    for kind, run in test_1.track_figures["runs"].items():
        assert judged.figures["runs"][kind] == pytest.approx(run)
    assert judged.figures["ratios"] == pytest.approx(test_1.track_figures["ratios"])
