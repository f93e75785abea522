"""An entry's rerun panel as an organizer sees it in Chromium (issue 43), at 1280x900,
1920x1080 and 390x844, light and dark: the form, the host readout, a finished rerun's card
with its progress and verdict (the demo claim's three real 1/10 reruns, judged as a worker
judges them) and an inconclusive one with its buttons. No sideways scroll on a desktop, badges
whole, buttons readable in both schemes; screenshots under var/test-artifacts/reruns/."""

import re
from collections import Counter

import pytest

from submissions.measures.figures import format_exact_duration
from testing.browser import chromium, log_in
from testing.factories import PASSWORD, StaffFactory
from testing.reruns import judged_demo_reruns
from testing.screens import DESKTOPS, PHONE, SCHEMES, problems_of, visit_everywhere

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The panel's text, and each card's verdict as a reader reads it with its paragraph unfolded:
# the headline, the measured line, the ratio and the paragraph behind "How this verdict was
# reached".
PANEL = """() => {
  document.querySelectorAll("details.verdict-details").forEach(details => { details.open = true; });
  const text = (card, field) => {
    const found = card.querySelector(`[data-field="${field}"]`);
    return found && found.offsetParent !== null ? found.innerText.trim() : "";
  };
  return {
    panel: document.querySelector("#reruns").innerText,
    verdicts: [...document.querySelectorAll("article.rerun")].map(card => ({
      headline: text(card, "headline"),
      measured: text(card, "result"),
      progress: card.querySelector(".progress-line").innerText.replace(/\\s+/g, " ").trim(),
      message: text(card, "message"),
    })),
  };
}"""


# Times a card's elapsed time and time left take, said by the page's script as it updates them.
TIMES = [0.04, 8.44, 59.94, 59.96, 65.0, 7_389.0, 891_852.0]


def test_the_rerun_panel_reads_whole_for_an_organizer_at_every_size_and_scheme(live_site):
    judged, inconclusive = judged_demo_reruns()
    StaffFactory(username="olga")
    pages = [
        ("rerun-reproduced", judged.submission.get_absolute_url(), f"#rerun-{judged.pk}"),
        ("rerun-inconclusive", inconclusive.submission.get_absolute_url(), "article.rerun"),
    ]

    with chromium(live_site.url) as browser:
        seen = visit_everywhere(
            browser,
            "reruns",
            pages,
            before=lambda watched: log_in(watched, "olga", PASSWORD),
            extra=lambda page: {
                **page.evaluate(PANEL),
                "durations": page.evaluate("seconds => seconds.map(window.IIBenchDuration)", TIMES),
            },
        )

    assert problems_of(seen) == [], "\n".join(problems_of(seen))
    for scheme in SCHEMES:
        for width, _ in (*DESKTOPS, PHONE):
            reproduced = seen[("rerun-reproduced", width, scheme)]
            buttons = [each["text"] for each in reproduced.view["buttons"]]
            assert "Start a rerun" in buttons and "Judge again" in buttons
            assert "REPRODUCED" in reproduced.view["badges"]
            other = seen[("rerun-inconclusive", width, scheme)]
            assert "INCONCLUSIVE" in other.view["badges"]
            assert "Calibrate its host" in [each["text"] for each in other.view["buttons"]]
    # Each figure of the verdict explained once in words, the first time it appears: the
    # legend above the cards, then the card; no fragment of the verdict said twice.
    panel = seen[("rerun-reproduced", 1280, "light")].extra
    (card,) = panel["verdicts"]
    legend = panel["panel"].index("The figures of a verdict, in words")
    assert legend < panel["panel"].index("cliff at 46% vs 50%, 46%, 48%")
    assert legend < panel["panel"].index("ratio 0.80")
    assert "ratio 0.80 (20% slower than the claim)" in card["progress"]
    said = " ".join((card["headline"], card["measured"], card["message"]))
    assert said.count("48% of the run") == 1, said
    assert card["measured"].startswith("Measured: the rate after the cliff 0.04 of the rate ")
    assert "at 50%, 46% and 48% of the run (the claim: 46%)" in card["message"]
    fragments = [
        each.strip()
        for part in (card["headline"], card["measured"], card["message"])
        for each in re.split(r"[;:.]\s|\(|\)", part)
        if len(each.strip()) > 12
    ]
    assert [each for each, count in Counter(fragments).items() if count > 1] == []
    # The judge's words as stored, unchanged: the API still says them as the judge did.
    assert "at 50% of the run, at 46% of the run, at 48% of the run" in judged.message
    # The card's live updates say a time as the server does: the site's one duration format.
    assert panel["durations"] == [format_exact_duration(each) for each in TIMES]
