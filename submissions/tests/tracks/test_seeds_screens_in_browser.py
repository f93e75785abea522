"""The seeds' page (/seeds/) as readers see it in Chromium (issue 43), at 1280x900, 1920x1080
and 390x844, light and dark, with one seed comparison reproduced: no sideways scroll on a
desktop, every column header on the screen, the chart's buttons readable; screenshots under
var/test-artifacts/seeds/."""

import pytest

from submissions.contests.reference_rows import reproduction_store
from submissions.tracks.reproduced import BY_KEY, Measured, engine_runs
from testing.browser import chromium
from testing.screens import SCHEMES, problems_of, visit_everywhere

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_seeds_page_reads_whole_at_every_size_and_scheme(live_site):
    for engine, rates in (("ROCKSDB", (9_000.0, 8_500.0)), ("InnoDB", (9_000.0, 900.0))):
        (run,) = engine_runs(BY_KEY["classic"], 100_000, engines=[engine])
        measured = Measured(10_000, 2.0, rates[1], rates[0] / 2, None, [(5_000, rates[0])])
        reproduction_store(run=run, measured=measured, host="vm-1")

    with chromium(live_site.url) as browser:
        seen = visit_everywhere(browser, "seeds", [("seeds", "/seeds/", "table.seeds-table")])

    assert problems_of(seen) == [], "\n".join(problems_of(seen))
    for scheme in SCHEMES:
        page = seen[("seeds", 1280, scheme)]
        assert [each["text"] for each in page.view["headers"]][:3] == ["where", "figures", "ratio"]
        assert "9.4x" in page.text  # the reproduced ratio, 8,500 / 900
        # The chart's linear/log buttons, read on their own fill in this scheme.
        assert [b["text"] for b in page.view["buttons"]] == ["linear", "log"], page.view["buttons"]
