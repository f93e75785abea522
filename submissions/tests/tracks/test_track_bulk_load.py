"""The bulk-loading track (seed 003): `iibench load` summaries, ranked per class."""

import pytest

from submissions.contests.rules import Status
from submissions.tracks.bulk_load import class_label
from testing.judging import judge_track
from testing.logs import c_load_log

AT_LEAST_100K = {"min_rows": 100_000}


def judge(log: bytes, track_rules: dict | None = None):
    return judge_track("bulk_load", log, track_rules=track_rules or AT_LEAST_100K)


def test_it_takes_the_load_figures_from_the_summary():
    judged = judge(c_load_log(keys=4, row_length=64, rows=200_000, seconds=2.0))

    assert judged.figures == {
        "keys": 4,
        "row_length": 64,
        "rows": 200_000,
        "rows_per_s": 100_000.0,
        "kv_pairs_per_s": 400_000.0,
        "mb_per_s": 6.5,
        "seconds": 2.0,
    }
    assert judged.metric == 100_000.0
    assert judged.track_class == "k004l0000064"
    assert class_label(judged.track_class) == "keys=4, row length=64"


def test_a_load_with_its_keys_in_place_passes_and_the_insert_rules_do_not_apply():
    verdicts = judge(c_load_log()).verdicts

    assert [rule for rule, v in verdicts.items() if v.status == Status.FAIL] == []
    assert verdicts["keys_in_place"].message == (
        "The table had its 4 keys (PRIMARY, valkey1, valkey2, valkey3) before the first row."
    )
    assert not {"target_rows", "rows_per_commit", "indexes_from_start"} & set(verdicts)


def test_it_fails_a_key_built_after_the_load():
    verdict = judge(c_load_log(created="after_load")).verdicts["keys_in_place"]

    assert verdict.status == Status.FAIL
    assert verdict.line == 11


def test_it_fails_a_load_whose_table_had_fewer_keys_than_it_states():
    verdict = judge(c_load_log(keys=4, listed_keys=2)).verdicts["keys_in_place"]

    assert verdict.status == Status.FAIL
    assert verdict.message == (
        "The load states 4 keys but the table had 2 (PRIMARY, valkey1) during the load."
    )


def test_it_fails_a_load_smaller_than_the_contest_asks():
    verdict = judge(c_load_log(rows=50_000), {"min_rows": 100_000_000}).verdicts["load_rows"]

    assert verdict.status == Status.FAIL
    assert verdict.message == "The load inserted 50,000 rows: fewer than the 100,000,000 required."


@pytest.mark.parametrize(
    ("keys", "row_length", "key"),
    [(1, 64, "k001l0000064"), (1, 256, "k001l0000256"), (32, 4096, "k032l0004096")],
)
def test_classes_sort_by_keys_then_row_length_as_people_read_them(keys, row_length, key):
    judged = judge(c_load_log(keys=keys, row_length=row_length))

    assert judged.track_class == key
    assert sorted(["k001l0000256", "k001l0000064", "k032l0004096"]) == [
        "k001l0000064",
        "k001l0000256",
        "k032l0004096",
    ]
