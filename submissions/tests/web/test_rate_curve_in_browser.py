"""The rate curves in a real browser: drawn from the page's data, hover values, the log toggle,
the terminal-rate band, and the compare page reached from the leaderboard's checkboxes."""

import pytest

from submissions.contests import ranks as contest_ranks
from submissions.measures.series import pack_columns, plot_preview
from testing.browser import browser_page
from testing.factories import (
    ContestFactory,
    SampleSeriesFactory,
    SubmissionFactory,
    rate_columns,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def plot_state(page, element_id: str) -> dict:
    return page.evaluate(
        """(id) => { const plot = document.getElementById(id);
            return {traces: plot.data.map(t => [t.name, t.x.length]),
                    shapes: (plot.layout.shapes || []).map(s => [s.x0, s.x1]),
                    yaxis: plot._fullLayout.yaxis.type}; }""",
        element_id,
    )


def test_it_draws_the_curve_with_hover_values_a_log_toggle_and_the_terminal_band(live_server):
    columns = rate_columns(400, every=50_000, deletes=True)
    entry = SubmissionFactory(rows=20_000_000, terminal_window_start_row=19_000_000)
    SampleSeriesFactory(
        submission=entry, count=400, columns=pack_columns(columns), preview=plot_preview(columns)
    )

    with browser_page() as page:
        page.goto(live_server.url + entry.get_absolute_url())
        page.wait_for_selector("#rate-curve .main-svg")
        drawn = plot_state(page, "rate-curve")
        box = page.locator("#rate-curve .nsewdrag").first.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_selector("#rate-curve .hoverlayer text")
        hover = " ".join(page.locator("#rate-curve .hoverlayer text").all_text_contents())
        page.locator("#rate-curve .updatemenu-button", has_text="log").click()
        logged = plot_state(page, "rate-curve")

    assert drawn["traces"] == [["interval", 400], ["cumulative", 400], ["deletes (interval)", 400]]
    assert drawn["shapes"] == [[19_000_000, 20_000_000]]
    assert drawn["yaxis"] == "linear"
    assert "rows/s" in hover and "interval" in hover
    assert logged["yaxis"] == "log"


def test_it_compares_the_entries_ticked_on_the_leaderboard(live_server):
    contest = ContestFactory()
    first = SubmissionFactory(contest=contest, seconds_to_target=1e5, storage_engine="TokuDB")
    second = SubmissionFactory(contest=contest, seconds_to_target=2e5, storage_engine="InnoDB")
    for entry in (first, second):
        SampleSeriesFactory(submission=entry, count=50)
    contest_ranks.contest_board_changed(contest_id=contest.pk)

    with browser_page() as page:
        page.goto(live_server.url + contest.get_absolute_url())
        page.locator("table.ranking input[name=ids]").nth(0).check()
        page.locator("table.ranking input[name=ids]").nth(1).check()
        page.get_by_role("button", name="Compare selected").click()
        page.wait_for_selector("#compare-curves .main-svg")
        address = page.url
        curves = [name for name, _ in plot_state(page, "compare-curves")["traces"]]

    assert address.endswith(f"/compare/?ids={first.pk},{second.pk}")
    assert curves == [
        f"#{first.pk} TokuDB ({first.entrant_name})",
        f"#{second.pk} InnoDB ({second.entrant_name})",
    ]
