"""Where an entry's status block (its verification, eligibility, rank, placement and trust) sits
as a reader sees it in Chromium (issue 43: it floated right inside the left half of the page):
on a desktop, at the right edge of the page's column, beside the title at its top; on a phone,
under the title across the screen. Screenshots under var/test-artifacts/entry-status/."""

import pytest

from testing.browser import chromium
from testing.reruns import judged_demo_reruns
from testing.screens import ARTIFACTS, DESKTOPS, PHONE

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BOXES = """() => {
  const box = (selector) => {
    const found = document.querySelector(selector).getBoundingClientRect();
    return {left: found.left, right: found.right, top: found.top, bottom: found.bottom,
            width: found.width};
  };
  return {head: box("header.entry-head"), title: box("header.entry-head h1"),
          status: box("header.entry-head .verdict-summary"), width: window.innerWidth};
}"""


def test_the_status_block_sits_at_the_right_beside_the_title_on_a_desktop(live_site):
    # The demo claim verified by its three real 1/10 reruns: its outcome in words, "not
    # eligible" with its reason and its trust, beside a title and a long meta line.
    judged, _ = judged_demo_reruns()
    entry = judged.submission
    folder = ARTIFACTS / "entry-status"
    folder.mkdir(parents=True, exist_ok=True)
    seen = {}
    with chromium(live_site.url) as browser:
        for width, height in (*DESKTOPS, PHONE):
            watched = browser.new_page(width=width, height=height)
            watched.page.goto(entry.get_absolute_url())
            seen[width] = watched.page.evaluate(BOXES)
            watched.page.screenshot(path=str(folder / f"entry-{width}x{height}.png"))
            watched.page.context.close()

    for width, _ in DESKTOPS:
        head, title, status = seen[width]["head"], seen[width]["title"], seen[width]["status"]
        # At the header's right edge, in the right half, level with the title.
        assert abs(status["right"] - head["right"]) <= 1, (width, seen[width])
        assert status["left"] > head["left"] + head["width"] / 2, (width, seen[width])
        assert status["top"] < title["bottom"], (width, seen[width])
    phone = seen[PHONE[0]]
    # On a phone: under the title, across the screen.
    assert phone["status"]["top"] >= phone["title"]["bottom"]
    assert phone["status"]["width"] >= phone["head"]["width"] - 1
