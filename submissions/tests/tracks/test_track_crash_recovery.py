"""The crash-recovery track (seed 003): declared figures, an optional log that must agree."""

import pytest

from submissions import tracks
from submissions.contests.rules import Status
from submissions.tracks.crash_recovery import class_key, class_label, decade
from testing.judging import judge_track
from testing.logs import c_log

DECLARED = {"insert_rate": "2000", "rows_at_crash": "250,000", "recovery_seconds": "13"}


def test_it_keeps_the_declared_figures_with_the_engine():
    judged = judge_track("crash_recovery", None, declared=DECLARED)

    assert judged.figures == {
        "insert_rate": 2_000.0,
        "rows_at_crash": 250_000,
        "recovery_seconds": 13.0,
        "engine": "InnoDB",
    }
    assert judged.metric == 13.0
    assert class_label(judged.track_class) == (
        "1,000 to 10,000 rows/s, 100,000 to 1,000,000 rows at the crash"
    )


def test_an_entry_without_a_log_passes_with_its_log_unverified():
    verdicts = judge_track("crash_recovery", None, declared=DECLARED).verdicts

    assert verdicts["recovery_declared"].status == Status.PASS
    assert verdicts["log_agrees"].status == Status.UNVERIFIED
    assert not {"target_rows", "report_interval"} & set(verdicts)


def test_it_fails_implausible_declared_figures():
    declared = {"insert_rate": "0", "rows_at_crash": "250000", "recovery_seconds": "-1"}

    verdict = judge_track("crash_recovery", None, declared=declared).verdicts["recovery_declared"]

    assert verdict.status == Status.FAIL
    assert verdict.message == (
        "Declared figures: the insert rate must be above 0 rows/s; the recovery time cannot be "
        "negative."
    )


def test_a_log_that_agrees_with_the_declaration_passes():
    log = c_log(rows=250_000, every=10_000, rate=2_000.0)

    verdict = judge_track(
        "crash_recovery", log, declared=DECLARED, report_every_rows=10_000
    ).verdicts["log_agrees"]

    assert verdict.status == Status.PASS
    assert (
        verdict.message == "The log averages 2,000 rows/s and stops at 250,000 rows, as declared."
    )


def test_a_log_that_stops_far_from_the_declared_crash_fails():
    log = c_log(rows=100_000, every=10_000, rate=2_000.0)

    verdict = judge_track(
        "crash_recovery", log, declared=DECLARED, report_every_rows=10_000
    ).verdicts["log_agrees"]

    assert verdict.status == Status.FAIL
    assert verdict.message == (
        "The log's run stops at 100,000 rows; the entry declares the crash at 250,000."
    )


def test_a_log_throttled_to_another_rate_fails():
    log = c_log(rows=250_000, every=10_000, rate=200.0).replace(
        b"# param max_rate=0", b"# param max_rate=200"
    )

    verdict = judge_track(
        "crash_recovery", log, declared=DECLARED, report_every_rows=10_000
    ).verdicts["log_agrees"]

    assert verdict.status == Status.FAIL
    assert verdict.message == "The log states --max-rate 200 rows/s; the entry declares 2,000."


@pytest.mark.parametrize(
    ("value", "expected"),
    [(198.7, 100), (200, 100), (1_000, 1_000), (1_950, 1_000), (16_384, 10_000), (0, 0)],
)
def test_classes_are_orders_of_magnitude(value, expected):
    assert decade(value) == expected


def test_a_small_crash_is_not_in_the_class_of_the_seeds_250m_row_crash():
    seed = class_key({"insert_rate": 200, "rows_at_crash": 250_000_000})
    small = class_key({"insert_rate": 200, "rows_at_crash": 10_000})
    near = class_key({"insert_rate": 180, "rows_at_crash": 300_000_000})
    assert small != seed
    assert near == seed
    assert (
        class_label(seed) == "100 to 1,000 rows/s, 100,000,000 to 1,000,000,000 rows at the crash"
    )


def test_it_refuses_declared_figures_that_are_not_numbers_naming_the_field():
    declared = {**DECLARED, "rows_at_crash": "about 250M"}

    with pytest.raises(tracks.TrackInputError) as refused:
        tracks.clean_declared(tracks.track_for("crash_recovery"), declared)

    assert refused.value.field == "rows_at_crash"
    assert refused.value.message == "Rows at the crash: 'about 250M' is not a whole number."


def test_it_refuses_an_entry_missing_a_declared_figure():
    declared = {"insert_rate": "200", "rows_at_crash": "250000"}

    with pytest.raises(tracks.TrackInputError) as refused:
        tracks.clean_declared(tracks.track_for("crash_recovery"), declared)

    assert refused.value.field == "recovery_seconds"
