"""An entry's rerun panel as an organizer sees it in Chromium (issue 43), at 1280x900,
1920x1080 and 390x844, light and dark: the form, the host readout, a finished rerun's card
with its progress and verdict (the demo claim's three real 1/10 reruns, judged as a worker
judges them) and an inconclusive one with its buttons. No sideways scroll on a desktop, badges
whole, buttons readable in both schemes; screenshots under var/test-artifacts/reruns/."""

import pytest

from testing.browser import chromium, log_in
from testing.factories import PASSWORD, StaffFactory
from testing.reruns import judged_demo_reruns
from testing.screens import DESKTOPS, PHONE, SCHEMES, problems_of, visit_everywhere

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PANEL = """() => ({
  panel: document.querySelector("#reruns").innerText,
  cards: [...document.querySelectorAll("article.rerun")].map(card => card.innerText),
})"""


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
            extra=lambda page: page.evaluate(PANEL),
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
