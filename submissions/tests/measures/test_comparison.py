"""The compare page's pure core: its state in the address, ratios to a baseline, repeats as
a band."""

import math

from submissions.measures.comparison import CompareState, band, parse_state, ratio


def state_of(query: str) -> CompareState:
    asked: dict[str, list[str]] = {}
    for part in query.split("&"):
        name, _, value = part.partition("=")
        asked.setdefault(name, []).append(value)
    return parse_state(asked)


def test_the_address_holds_every_part_of_the_view_and_reads_back_the_same():
    query = "ids=3,7,9&refs=2&base=r2&x=time&zoom=terminal&rate=cumulative&xlog=1&ylog=1&group=7,9"

    state = state_of(query)

    assert state == CompareState(
        ids=(3, 7, 9),
        refs=(2,),
        base="r2",
        x="time",
        xlog=True,
        ylog=True,
        zoom="terminal",
        rate="cumulative",
        groups=((7, 9),),
    )
    assert state.query() == query
    assert state_of(state.query()) == state


def test_junk_in_the_address_falls_back_to_the_defaults():
    state = state_of("ids=3,x,#7,3&x=sideways&zoom=99&rate=&base=e42&group=3")

    assert state.ids == (3, 7)
    assert (state.x, state.zoom, state.rate, state.base, state.groups) == (
        "rows",
        "all",
        "interval",
        "",
        (),
    )
    assert state.query() == "ids=3,7"


def test_a_group_holds_only_compared_entries_and_each_entry_once():
    state = state_of("ids=1,2,3,4&group=1,2,99&group=2,3,4")

    assert state.groups == ((1, 2), (3, 4))


def test_ticked_repeats_make_one_group_in_place_of_the_old_ones():
    state = parse_state({"ids": ["1,2,3"], "group": ["1,2"], "repeat": ["2", "3"]})

    assert state.groups == ((2, 3),)


def test_a_ratio_says_which_way_the_reader_wins_and_how_far():
    faster = ratio(7_300.0, 404.0, higher_is_better=True)
    slower_time = ratio(2 * 86_400.0, 86_400.0, higher_is_better=False)
    same = ratio(1_020.0, 1_000.0, higher_is_better=True)

    assert faster.text == "18.1x" and faster.better and faster.css == "ratio-better-3"
    assert slower_time.text == "2.00x" and not slower_time.better
    assert slower_time.css == "ratio-worse-2"
    assert same.css == "ratio-even"
    assert ratio(None, 404.0, higher_is_better=True) is None
    assert ratio(5.0, 0.0, higher_is_better=True) is None
    assert ratio(math.nan, 1.0, higher_is_better=True) is None


def test_a_band_spans_the_repeats_over_the_rows_all_of_them_reached():
    runs = [
        ([0, 100, 200], [10.0, 20.0, 30.0]),
        ([0, 100], [14.0, 16.0]),
        ([50, 100, 300], [12.0, 22.0, 32.0]),
    ]

    found = band([1, 2, 3], runs, terminal_rates=[30.0, 16.0, 32.0], points=3)

    assert found.x == [50.0, 75.0, 100.0]
    # At 50 rows: 15, 15 and 12; at 75: 17.5, 15.5, 17; at 100: 20, 16, 22.
    assert found.low == [12.0, 15.5, 16.0]
    assert found.high == [15.0, 17.5, 22.0]
    assert found.median == [15.0, 17.0, 20.0]
    assert found.spread == (32.0 - 16.0) / 30.0


def test_runs_that_share_no_rows_make_no_band():
    assert band([1, 2], [([0, 10], [1.0, 1.0]), ([20, 30], [1.0, 1.0])]) is None
    assert band([1], [([0, 10], [1.0, 1.0])]) is None
