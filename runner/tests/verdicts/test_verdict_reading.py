"""How a verdict reads on a rerun's card (runner/verdict_reading.py): each cliff place said
once, the measured line without what the headline said, the ratio in words."""

import pytest

from runner.verdict_reading import measured_line, places_once, ratio_words, verdict_reading

# The demo claim's three real 1/10 reruns, as the judge words them (runner/tests/verdicts/test_rejudge.py).
HEADLINE = (
    "Reproduced at 1/10 on mariadb: within the host's resolution of ±15%; "
    "cliff at 46% vs 50%, 46%, 48%."
)
SUMMARY = (
    "cliff at 50% of the run, at 46% of the run, at 48% of the run; the rate after it 0.04 of "
    "the rate before it; average 9,546 to 10,577 rows/s"
)
MESSAGE = (
    "At scale 1/10 (3 runs of 300,000 rows): the cliff (the rate's steepest fall): at 50% of "
    "the run, at 46% of the run, at 48% of the run (the claim: at 46% of the run); the rate "
    "after the cliff over the rate before it 0.04 (the claim: 0.08)."
)


def test_the_places_of_a_cliff_are_said_once_with_the_claim_s_beside_them():
    assert places_once(MESSAGE) == (
        "At scale 1/10 (3 runs of 300,000 rows): the cliff (the rate's steepest fall): at 50%, "
        "46% and 48% of the run (the claim: 46%); the rate after the cliff over the rate "
        "before it 0.04 (the claim: 0.08)."
    )
    assert places_once("at 50% of the run") == "at 50% of the run"  # one place: as it is


def test_the_measured_line_leaves_out_the_places_the_headline_named():
    assert measured_line(SUMMARY, HEADLINE) == (
        "the rate after the cliff 0.04 of the rate before it; average 9,546 to 10,577 rows/s"
    )
    # Other places than the headline's (or no headline): said, once.
    other = HEADLINE.replace("50%, 46%, 48%", "50%, 46%, 47%")
    assert measured_line(SUMMARY, other).startswith("cliff at 50%, 46% and 48% of the run; ")
    assert measured_line(SUMMARY, "").startswith("cliff at 50%, 46% and 48% of the run; ")
    assert measured_line("recovered in 0.35 s", HEADLINE) == "recovered in 0.35 s"


@pytest.mark.parametrize(
    ("ratio", "words"),
    [
        (0.8002, "20% slower than the claim"),
        (1.0004, "as fast as the claim"),
        (1.25, "25% faster than the claim"),
        (None, ""),
    ],
)
def test_the_ratio_is_said_in_words(ratio, words):
    assert ratio_words(ratio) == words


def test_a_card_says_each_place_of_the_cliff_of_the_run_once():
    reading = verdict_reading(summary=SUMMARY, headline=HEADLINE, message=MESSAGE, ratio=0.8)
    # "48% of the run" once across the card's headline, measured line and paragraph (the
    # judge's words say it three times).
    assert " ".join((HEADLINE, SUMMARY, MESSAGE)).count("48% of the run") == 2
    card = " ".join((HEADLINE, reading.measured, reading.message))
    assert card.count("48% of the run") == 1 and card.count("48%") == 2
