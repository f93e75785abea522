"""The seeds' table page in headless Chromium: the measured runs' curves drawn by Plotly beside
the published ratios, without console errors or CSP violations."""

import pytest

from submissions.contests.reference_rows import reproduction_store
from submissions.tracks.reproduced import BY_KEY, Measured, engine_runs
from testing.browser import chromium

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def reproduced(live_site):
    for engine, rates in (("ROCKSDB", (9_000.0, 8_500.0)), ("InnoDB", (9_000.0, 900.0))):
        (run,) = engine_runs(BY_KEY["classic"], 100_000, engines=[engine])
        curve = [(5_000, rates[0]), (10_000, rates[1])]
        measured = Measured(10_000, 2.0, rates[1], rates[0] / 2, None, curve)
        reproduction_store(run=run, measured=measured, host="vm-1")


def test_the_seeds_page_draws_the_reproduced_curves(reproduced, live_site):
    with chromium(live_site.url) as browser:
        visitor = browser.new_page()
        response = visitor.page.goto("/seeds/")
        assert response.status == 200
        visitor.page.wait_for_selector("#seeds-curve-classic .main-svg")
        legend = visitor.page.locator("#seeds-curve-classic .legend").text_content()
        visitor.screenshot("seeds")
        assert "MyRocks, vm-1, 1/100,000" in legend and "InnoDB, vm-1, 1/100,000" in legend
        assert visitor.page.locator("#seeds-curve-fifo").count() == 0  # nothing measured there
        assert "9.4x" in visitor.page.inner_text("main")  # 8,500 / 900
        assert visitor.csp_violations() == []
