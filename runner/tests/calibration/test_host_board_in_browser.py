"""A contest's host board as readers see it in Chromium (issue 43), at 1280x900, 1920x1080 and
390x844, light and dark, with the demo claim's three real 1/10 reruns judged and another demo
solution's run inconclusive: no sideways scroll on a desktop, every column header on the screen
with its unit, each verdict badge whole ("INCONCLUSIVE" was cut to "INCONCL"); screenshots
under var/test-artifacts/host-board/."""

import pytest

from testing.browser import chromium
from testing.reruns import judged_demo_reruns
from testing.screens import DESKTOPS, PHONE, SCHEMES, problems_of, visit_everywhere

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_host_board_reads_whole_at_every_size_and_scheme(live_site):
    judged, inconclusive = judged_demo_reruns()
    board = f"/contests/{judged.submission.contest.slug}/host-board/"

    with chromium(live_site.url) as browser:
        seen = visit_everywhere(browser, "host-board", [("host-board", board, "table.host-board")])

    assert problems_of(seen) == [], "\n".join(problems_of(seen))
    for scheme in SCHEMES:
        for width, _ in (*DESKTOPS, PHONE):
            page = seen[("host-board", width, scheme)]
            assert sorted(page.view["badges"], key=len) == ["REPRODUCED", "INCONCLUSIVE"]
            assert "Terminal rate (rows/s)" in [each["text"] for each in page.view["headers"]]
    assert judged.verdict == "reproduced" and inconclusive.verdict == "inconclusive"
    # Each column's figure and each verdict word explained in words once, above the table.
    text = seen[("host-board", 1280, "light")].text
    legend = text.index("The columns and verdicts, in words")
    assert legend < text.index("REPRODUCED") and text.count("where the insert rate falls") == 1
    assert "inconclusive: the run cannot say" in text
