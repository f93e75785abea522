"""A database engineer compares two entries against the 2008 InnoDB reference in a real
browser, changes the view, and shares it: the address alone gives the same view elsewhere."""

import pytest

from submissions.contests import ranks as contest_ranks
from testing.browser import chromium
from testing.factories import (
    ContestFactory,
    ReferenceResultFactory,
    SampleSeriesFactory,
    SubmissionFactory,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PLOT_STATE = """() => {
  const plot = document.getElementById('compare-curves');
  return {names: plot.data.map(trace => trace.name), state: plot.dataset.state,
          xTitle: plot.layout.xaxis.title.text, caption: document.getElementById('compare-caption').innerText,
          zoom: plot.dataset.zoomRange.split(' ').filter(Boolean).map(Number),
          shown: plot._fullLayout.xaxis.range,
          ratioTraces: plot.data.filter(trace => trace.yaxis === 'y2').length};
}"""


@pytest.fixture
def two_entries_and_a_reference(live_site):
    contest = ContestFactory(slug="share", title="Share contest")
    reference = ReferenceResultFactory(contest=contest, label="Tokutek InnoDB 2008")
    entries = []
    for engine, terminal in (("TokuDB", 7_312.0), ("InnoDB", 650.0)):
        entry = SubmissionFactory(
            contest=contest,
            storage_engine=engine,
            terminal_rate=terminal,
            rows=120_000_000,
            terminal_window_start_row=108_000_000,
        )
        SampleSeriesFactory(submission=entry, count=120)
        entries.append(entry)
    contest_ranks.contest_board_changed(contest_id=contest.pk)
    return entries, reference


def test_an_engineer_compares_against_a_reference_and_shares_the_view(
    two_entries_and_a_reference, live_site
):
    (tokudb, innodb), reference = two_entries_and_a_reference
    with chromium(live_site.url) as browser:
        watched = browser.new_page()
        page = watched.page
        page.goto(f"/compare/?ids={tokudb.pk},{innodb.pk}")
        page.wait_for_selector("#compare-curves .main-svg")
        page.select_option("select[name=refs]", label="Tokutek InnoDB 2008")
        page.wait_for_url(f"**refs={reference.pk}**")
        page.select_option("select[name=base]", value=f"r{reference.pk}")
        page.wait_for_url(f"**base=r{reference.pk}**")
        page.wait_for_selector("#compare-curves .main-svg")
        page.select_option("select[name=x]", "time")
        page.select_option("select[name=zoom]", "terminal")
        page.wait_for_function(
            "document.getElementById('compare-curves').dataset.state.startsWith('time')"
        )
        shared = page.url
        mine = page.evaluate(PLOT_STATE)
        terminal_ratio = page.locator(f"tr[data-key=e{tokudb.pk}] td").nth(8).inner_text()
        watched.screenshot("compare-baseline")

        fresh = browser.new_page().page  # a fresh browser context: no cookies, no history
        fresh.goto(shared)
        fresh.wait_for_selector("#compare-curves .main-svg")
        theirs = fresh.evaluate(PLOT_STATE)
        chosen = fresh.eval_on_selector("select[name=base]", "select => select.value")

        fresh.goto(f"/entries/{tokudb.pk}/")
        badge = fresh.locator(".share img")
        badge_width = badge.evaluate("image => image.complete ? image.naturalWidth : 0")
        snippet = fresh.input_value("#share-markdown")

    assert shared.endswith(
        f"/compare/?ids={tokudb.pk},{innodb.pk}&refs={reference.pk}&base=r{reference.pk}"
        "&x=time&zoom=terminal"
    )
    assert mine == theirs
    # The reference ran 19.6 days, the entries minutes: over 100-fold, so each run is drawn
    # against its own length (a fraction), as the note above the plot says.
    assert mine["xTitle"] == "fraction of each run's elapsed time"
    # The terminal-window preset: from where the window starts (108M of 120M rows, a larger
    # share of the time as the rate falls) to the end.
    assert 0.5 < mine["zoom"][0] < 0.9 and mine["zoom"][1] == 1
    assert mine["shown"] == pytest.approx(mine["zoom"])
    assert mine["caption"].startswith("Interval insertion rate against elapsed time.")
    assert mine["ratioTraces"] == 2  # both entries as a ratio to the reference
    assert chosen == f"r{reference.pk}"
    assert terminal_ratio.split()[-1] == "18.1x"  # 7,312 rows/s against the reference's 404
    assert badge_width > 50
    assert f"/entries/{tokudb.pk}/badge.svg" in snippet
