"""The ranking rule and the placement of reference rows: plain functions, no database."""

from submissions.measures.ranking import (
    Standing,
    competition_ranks,
    interleave,
    page_slots,
    reference_positions,
)

DAY = 86_400.0


def test_it_ranks_the_fastest_to_the_target_first():
    ranks = competition_ranks(
        [Standing(1, 20 * DAY, 400.0), Standing(2, 3 * DAY, 9_000.0), Standing(3, 9 * DAY, 900.0)]
    )

    assert ranks == {2: 1, 3: 2, 1: 3}


def test_it_ranks_ties_by_terminal_rate():
    ranks = competition_ranks([Standing(1, 5 * DAY, 800.0), Standing(2, 5 * DAY, 1_200.0)])

    assert ranks == {2: 1, 1: 2}


def test_it_gives_entries_equal_on_both_the_same_rank_and_skips_the_next():
    ranks = competition_ranks(
        [
            Standing(1, 2 * DAY, 900.0),
            Standing(2, 4 * DAY, 500.0),
            Standing(3, 4 * DAY, 500.0),
            Standing(4, 7 * DAY, 300.0),
        ]
    )

    assert [ranks[entry] for entry in (1, 2, 3, 4)] == [1, 2, 2, 4]


def test_it_ranks_a_missing_terminal_rate_below_any_measured_one_on_a_tie():
    ranks = competition_ranks([Standing(1, 5 * DAY, None), Standing(2, 5 * DAY, 10.0)])

    assert ranks == {2: 1, 1: 2}


def test_it_ranks_nobody_when_there_is_nobody():
    assert competition_ranks([]) == {}


def test_it_places_each_reference_after_the_entries_before_it_and_the_references_above():
    # Two references, both after 3 entries: they take board rows 3 and 4.
    assert reference_positions([0, 3, 3]) == [0, 4, 5]


def test_it_fills_a_page_with_the_entries_around_the_references_on_it():
    positions = reference_positions([2, 6])  # board rows 2 and 7

    first = page_slots(0, 5, positions)
    second = page_slots(5, 5, positions)

    assert (first.entry_offset, first.entry_limit, first.reference_slots) == (0, 4, {2: 0})
    assert (second.entry_offset, second.entry_limit, second.reference_slots) == (4, 4, {2: 1})


def test_it_interleaves_references_at_their_slots_and_entries_in_order():
    slots = page_slots(0, 5, reference_positions([1, 3]))

    rows = list(interleave(["e1", "e2", "e3"], ["r1", "r2"], slots, 5))

    assert rows == ["e1", "r1", "e2", "e3", "r2"]


def test_it_shows_a_reference_after_the_last_entry_on_the_last_page():
    slots = page_slots(2, 2, reference_positions([3]))

    assert list(interleave(["e3"], ["r1"], slots, 2)) == ["e3", "r1"]


def test_it_leaves_no_hole_when_an_entry_vanished_between_count_and_page():
    slots = page_slots(0, 4, reference_positions([3]))

    assert list(interleave(["e1", "e2"], ["r1"], slots, 4)) == ["e1", "e2", "r1"]


def test_the_classic_tracks_keys_rank_as_the_time_to_the_target_rule_does():
    from submissions.measures.ranking import KeyedStanding, keyed_ranks
    from submissions.tracks import CLASSIC

    # seconds, terminal rate, estimated: ties, an estimate faster than every measured time, a
    # missing and an infinite rate, and an entry without a time (never ranked).
    entries = {
        1: (5 * DAY, 800.0, False),
        2: (5 * DAY, 1_200.0, False),
        3: (1 * DAY, 9_000.0, True),
        4: (5 * DAY, None, False),
        5: (5 * DAY, float("inf"), False),
        6: (2 * DAY, 500.0, False),
        7: (2 * DAY, 500.0, False),
        8: (None, 9_000.0, False),
    }
    values = {"seconds_to_target": 0, "terminal_rate": 1, "estimated": 2}
    keys = CLASSIC.ranking.order
    keyed = keyed_ranks(
        [
            KeyedStanding(pk, tuple(figures[values[key.column]] for key in keys))
            for pk, figures in entries.items()
        ],
        keys,
    )
    rule = competition_ranks(
        Standing(pk, seconds, rate, estimated)
        for pk, (seconds, rate, estimated) in entries.items()
        if seconds is not None
    )

    assert keyed == rule == {6: 1, 7: 1, 2: 3, 1: 4, 4: 5, 5: 5, 3: 7}
