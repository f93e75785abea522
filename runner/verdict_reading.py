"""How a rerun's verdict reads on a page (issue 43): the judge's stored words stay as they are,
byte for byte, in the database and the API's `message`, `headline` and `result` (issue 41);
this is the reading the entry page's card and its live updates show, where each figure is said
once and the ratio in words.

The judge says the cliff's place run by run ("at 50% of the run, at 46% of the run, at 48% of
the run"), in the headline, in the measured summary and in the paragraph behind it: read on a
card, the headline names the places first (the panel's legend explains them), the measured line
adds only what the headline did not say (the fall past the cliff, the average rates) and the
paragraph names the places once ("at 50%, 46% and 48% of the run (the claim: 46%)")."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

PLACE = r"\d+(?:\.\d+)?%"
# Two or more places of a cliff, each "at N% of the run".
PLACES = re.compile(rf"at ({PLACE}) of the run((?:, at {PLACE} of the run)+)")
# The claim's place beside the runs' once they are said together: "(the claim: at 46% of the run)".
CLAIM_PLACE = re.compile(rf"of the run \(the claim: at ({PLACE}) of the run\)")
# The measured summary's first clause, when it is the cliff's places.
MEASURED_CLIFF = re.compile(r"^cliff (?P<places>[^;]*); the rate after it (?P<rest>.*)$")
HEADLINE_CLIFF = re.compile(r"cliff at (?P<places>[^;().]*)")


@dataclass(frozen=True)
class VerdictReading:
    measured: str  # the card's "Measured:" line; "" when the headline said all of it
    message: str  # the paragraph behind "How this verdict was reached"
    ratio: str  # the ratio in words: "20% slower than the claim"; "" without a ratio

    def as_dict(self) -> dict:
        return asdict(self)


def places_once(text: str) -> str:
    """ "at 50% of the run, at 46% of the run, at 48% of the run" -> "at 50%, 46% and 48% of
    the run"; the claim's place beside them without its own "of the run"."""

    def joined(found: re.Match) -> str:
        places = re.findall(PLACE, found.group(0))
        return f"at {', '.join(places[:-1])} and {places[-1]} of the run"

    return CLAIM_PLACE.sub(r"of the run (the claim: \1)", PLACES.sub(joined, text))


def _places(text: str) -> list[str]:
    return re.findall(rf"{PLACE}|none", text)


def measured_line(summary: str, headline: str) -> str:
    """The measured summary without the cliff's places when the headline named the same ones
    ("cliff at 46% vs 50%, 46%, 48%": the claim's, then each run's)."""
    found = MEASURED_CLIFF.match(summary or "")
    said = HEADLINE_CLIFF.search(headline or "")
    if found and said:
        runs = said.group("places").split(" vs ", 1)[-1]
        if _places(found.group("places")) == _places(runs):
            return f"the rate after the cliff {found.group('rest')}"
    return places_once(summary or "")


def ratio_words(ratio: float | None) -> str:
    """The rerun's performance over the claim's at the same scale, in words."""
    if ratio is None:
        return ""
    if round(ratio, 2) == 1.0:
        return "as fast as the claim"
    if ratio < 1.0:
        return f"{1.0 - ratio:.0%} slower than the claim"
    return f"{ratio - 1.0:.0%} faster than the claim"


def verdict_reading(
    *, summary: str, headline: str, message: str, ratio: float | None
) -> VerdictReading:
    return VerdictReading(
        measured=measured_line(summary, headline),
        message=places_once(message or ""),
        ratio=ratio_words(ratio),
    )
