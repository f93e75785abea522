"""The tracks' plots in a real browser, under the site's CSP: FIFO's deletes marker, query times
on log axes beside the seed's, grouped bars per key type, recovery bars."""

import pytest

from submissions.contests import reference_rows
from submissions.models import Workload
from testing.browser import browser_page
from testing.factories import ContestFactory, SubmissionFactory
from testing.logs import c_fifo_log
from testing.tracks import OPEN, crash, fifo_contest, pk_figures, submit

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def plot_traces(page, element_id: str) -> dict:
    return page.evaluate(
        """(id) => { const plot = document.getElementById(id);
            return {traces: plot.data.map(t => [t.name, t.type]),
                    shapes: (plot.layout.shapes || []).map(s => [s.type, s.x0]),
                    xaxis: plot._fullLayout.xaxis.type}; }""",
        element_id,
    )


def test_the_fifo_curve_marks_where_deletes_begin(live_server):
    entry = submit(fifo_contest(), c_fifo_log())

    with browser_page() as page:
        page.goto(live_server.url + entry.get_absolute_url())
        page.wait_for_selector("#rate-curve .main-svg")
        drawn = plot_traces(page, "rate-curve")
        marker = page.locator("#rate-curve .annotation-text", has_text="deletes begin").count()

    assert ["line", 250_000] in drawn["shapes"]
    assert marker == 1


def test_the_key_type_bars_and_the_recovery_bars_are_drawn(live_server):
    pk_contest = ContestFactory(workload=Workload.PK_TYPES, **OPEN)
    pk_entry = SubmissionFactory(
        contest=pk_contest, track_figures=pk_figures(0.7), track_metric=0.7
    )
    crash_contest = ContestFactory(workload=Workload.CRASH_RECOVERY, **OPEN)
    reference_rows.reference_results_create(contest=crash_contest)
    crash_entry = SubmissionFactory(
        contest=crash_contest, track_figures=crash(200, 0.35), track_metric=0.35
    )

    with browser_page() as page:
        page.goto(live_server.url + pk_entry.get_absolute_url())
        page.wait_for_selector("#track-plot .main-svg")
        bars = plot_traces(page, "track-plot")
        page.goto(live_server.url + crash_entry.get_absolute_url())
        page.wait_for_selector("#track-plot .main-svg")
        recovery = plot_traces(page, "track-plot")

    # Three measures, three key types each.
    assert len(bars["traces"]) == 9
    assert {kind for kind, _ in bars["traces"]} == {
        "BIGINT auto-increment",
        "CHAR(36) UUID",
        "ordered BINARY(16) UUID",
    }
    assert [kind for _, kind in recovery["traces"]] == ["bar"]
    assert recovery["xaxis"] == "log"


def test_the_query_times_are_drawn_on_log_axes_beside_the_seeds(live_server):
    contest = ContestFactory(
        workload=Workload.QUERY, track_rules={"query_at_rows": 1_000_000}, **OPEN
    )
    reference_rows.reference_results_create(contest=contest)
    figures = {
        "points": [[500_000, 0.0001], [1_000_000, 0.0005]],
        "source": "log",
        "at_rows": 1_000_000,
        "query_seconds": 0.0005,
        "max_rows": 1_000_000,
    }
    entry = SubmissionFactory(contest=contest, track_figures=figures, track_metric=0.0005)

    with browser_page() as page:
        page.goto(live_server.url + entry.get_absolute_url())
        page.wait_for_selector("#track-plot .main-svg")
        drawn = plot_traces(page, "track-plot")

    assert [name for name, _ in drawn["traces"]] == [
        "this entry (log)",
        "Customer lab test: MyISAM",
        "Customer lab test: TokuDB",
    ]
    assert drawn["xaxis"] == "log"
