"""The query-scalability track (seed 001): query times from the log or declared, its rules."""

import pytest

from submissions import tracks
from submissions.contests.rules import Status
from submissions.tracks.query import SeriesError, parse_declared_series
from testing.judging import judge_track
from testing.logs import c_query_log

AT_200K = {"query_at_rows": 200_000}
# Queries per second falling as the table grows: 1 / qps seconds per query.
SLOWING = [(50_000, 100.0), (100_000, 50.0), (150_000, 20.0), (200_000, 10.0), (250_000, 5.0)]


def test_it_reads_seconds_per_query_from_the_logs_query_columns():
    judged = judge_track("query", c_query_log(SLOWING), track_rules=AT_200K)

    assert judged.figures["source"] == "log"
    assert judged.figures["points"] == [
        [50_000, 0.01],
        [100_000, 0.02],
        [150_000, 0.05],
        [200_000, 0.1],
        [250_000, 0.2],
    ]
    assert judged.figures["query_seconds"] == pytest.approx(0.1)
    assert judged.metric == pytest.approx(0.1)
    assert judged.verdicts["query_samples"].status == Status.PASS
    assert judged.verdicts["query_samples"].line == 12  # the first report with queries


def test_it_interpolates_the_query_time_between_two_reports():
    judged = judge_track("query", c_query_log(SLOWING), track_rules={"query_at_rows": 175_000})

    assert judged.metric == pytest.approx((0.05 + 0.1) / 2)


def test_a_declared_series_is_used_instead_of_the_log():
    declared = {"query_series": "125M, 7.2\n202,000,000 11.3 s\n"}
    judged = judge_track(
        "query",
        c_query_log(SLOWING),
        declared=declared,
        track_rules={"query_at_rows": 125_000_000},
    )

    assert judged.figures["source"] == "declared"
    assert judged.figures["points"] == [[125_000_000, 7.2], [202_000_000, 11.3]]
    assert judged.metric == 7.2
    # The declared sizes are beyond what the attached run reached: a note, not a failure.
    assert judged.verdicts["query_samples"].status == Status.WARN


def test_it_fails_a_log_without_query_samples_and_no_declared_series():
    judged = judge_track("query", c_query_log([(50_000, 0.0), (100_000, 0.0)]))

    assert judged.figures["points"] == []
    assert judged.verdicts["query_samples"].status == Status.FAIL
    assert judged.verdicts["query_at_size"].status == Status.FAIL
    assert judged.metric is None


def test_it_fails_query_times_that_stop_short_of_the_contests_size():
    judged = judge_track("query", c_query_log(SLOWING), track_rules={"query_at_rows": 1_000_000})

    verdict = judged.verdicts["query_at_size"]
    assert verdict.status == Status.FAIL
    assert verdict.message == (
        "The query times stop at 250,000 rows, short of the 1,000,000 rows this contest "
        "compares at."
    )


def test_the_classic_target_does_not_apply_to_query_times():
    judged = judge_track("query", c_query_log(SLOWING), track_rules=AT_200K, target_rows=10**9)

    assert "target_rows" not in judged.verdicts
    assert judged.verdicts["report_interval"].status == Status.FAIL  # 50,000, not 5,000


@pytest.mark.parametrize(
    ("text", "points"),
    [
        ("125000000, 7.2", [[125_000_000, 7.2]]),
        ("125M 7.2 s\n132M 406 s", [[125_000_000, 7.2], [132_000_000, 406.0]]),
        (
            "# rows seconds\n125000000\t7.2\n\n202000000;11.3",
            [[125_000_000, 7.2], [202_000_000, 11.3]],
        ),
        ("125,000,000, 7.2", [[125_000_000, 7.2]]),
        ("2.5k rows 0.3", [[2_500, 0.3]]),
    ],
)
def test_it_reads_the_ways_people_write_a_series(text, points):
    assert parse_declared_series(text) == points


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("125000000", "line 1: expected 'rows, seconds'"),
        ("10, 1\n5, 2", "line 2: rows must grow from line to line (5 after 10)"),
        ("# nothing\n", "no point"),
        ("1, 2, 3, 4", "line 1: expected 'rows, seconds'"),
    ],
)
def test_it_names_the_line_of_a_series_it_cannot_read(text, message):
    with pytest.raises(SeriesError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_declared_series(text)


def test_a_declared_series_that_cannot_be_read_is_refused_naming_the_field():
    with pytest.raises(tracks.TrackInputError) as refused:
        tracks.clean_declared(tracks.track_for("query"), {"query_series": "lots, of rows"})

    assert refused.value.field == "query_series"
    assert refused.value.message.startswith("Query times (optional): line 1:")
