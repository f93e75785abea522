"""The engine page and the search page as readers see them in Chromium (issue 43), at 1280x900,
1920x1080 and 390x844, light and dark, on the demo registry: no sideways scroll on a desktop,
every column header on the screen with its unit, badges whole, buttons readable; screenshots
under var/test-artifacts/systems/."""

import pytest

from submissions.entries.demo import demo_load
from testing.browser import chromium
from testing.screens import DESKTOPS, PHONE, SCHEMES, problems_of, visit_everywhere

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PAGES = [
    ("engine", "/engines/InnoDB/", "#system-history .main-svg"),
    ("search", "/search/?q=InnoDB", "table.entries-found"),
]


def test_the_engine_and_search_pages_read_whole_at_every_size_and_scheme(live_site):
    demo_load()

    with chromium(live_site.url) as browser:
        seen = visit_everywhere(browser, "systems", PAGES)

    assert problems_of(seen) == [], "\n".join(problems_of(seen))
    for name, _, _ in PAGES:
        for scheme in SCHEMES:
            for width, _ in (*DESKTOPS, PHONE):
                headers = [each["text"] for each in seen[(name, width, scheme)].view["headers"]]
                assert "Terminal rate (rows/s)" in headers, (name, width, scheme, headers)
    # What each page is for, on the first screen's text: the engine's best rate with its unit,
    # the search's count, and a way to compare what was found.
    engine = seen[("engine", 1280, "light")].text
    assert "Best terminal rate over time" in engine and "rows/s since" in engine
    search = seen[("search", 1280, "light")]
    assert "matching “InnoDB”" in search.text
    assert [b["text"] for b in search.view["buttons"]] == ["Search", "Compare selected"]
    assert min(b["contrast"] for b in seen[("search", 1280, "dark")].view["buttons"]) >= 3
