"""An entry's page: its figures, verdicts and the rate curve drawn from the stored preview."""

import json
import re

import pytest
from django.contrib.staticfiles import finders
from django.db import connection
from django.test.utils import CaptureQueriesContext

from submissions.measures.series import MAX_PLOT_POINTS, pack_columns, plot_preview
from testing.factories import SampleSeriesFactory, SubmissionFactory, rate_columns

pytestmark = pytest.mark.django_db


def curve_data(response) -> dict:
    match = re.search(
        rb'<script id="rate-curve-data" type="application/json">(.*?)</script>', response.content
    )
    return json.loads(match.group(1))


def test_it_plots_the_interval_and_cumulative_rates_with_the_terminal_window(client):
    entry = SubmissionFactory(rows=100_000_000, terminal_window_start_row=90_000_000)
    series = SampleSeriesFactory(submission=entry, count=100)

    response = client.get(entry.get_absolute_url())
    html = response.content.decode()

    # What the plot draws, and not the seconds the compare page reads from the same preview.
    assert curve_data(response) == series.rate_curves
    assert set(curve_data(response)) == {"count", "interval_rate", "cumulative_rate"}
    assert 'data-terminal-start="90000000" data-terminal-end="100000000"' in html
    assert "/static/vendor/plotly-basic.min.js" in html
    assert "/static/js/rate-curve.js" in html


def test_it_plots_the_delete_rate_of_a_run_that_deletes(client):
    columns = rate_columns(200, deletes=True)
    series = SampleSeriesFactory(columns=pack_columns(columns), preview=plot_preview(columns))

    data = curve_data(client.get(series.submission.get_absolute_url()))

    assert data["interval_delete_rate"]["y"] == columns["interval_delete_rate"].tolist()


def test_it_sends_at_most_5000_points_per_series_for_a_2_million_sample_run(client):
    preview = plot_preview(rate_columns(2_000_000, every=500))
    series = SampleSeriesFactory(count=2_000_000, columns=b"", preview=preview)

    response = client.get(series.submission.get_absolute_url())
    data = curve_data(response)

    assert len(data["interval_rate"]["x"]) <= MAX_PLOT_POINTS
    assert len(data["cumulative_rate"]["x"]) <= MAX_PLOT_POINTS
    assert b"2,000,000 samples, downsampled for the plot" in response.content
    assert len(response.content) < 1_000_000


def test_it_never_reads_the_full_series_to_draw_the_page(client):
    series = SampleSeriesFactory(count=100)

    with CaptureQueriesContext(connection) as queries:
        client.get(series.submission.get_absolute_url())

    assert not any('"columns"' in query["sql"] for query in queries.captured_queries)


def test_it_says_so_when_the_log_has_no_series(client):
    entry = SubmissionFactory()

    response = client.get(entry.get_absolute_url())

    assert b"This log has no rate series to plot." in response.content
    assert b"plotly-basic.min.js" not in response.content


def test_it_serves_the_vendored_plotly_bundle_not_a_cdn(client):
    series = SampleSeriesFactory()

    html = client.get(series.submission.get_absolute_url()).content.decode()

    # The partial bundle, with plotly.js's licence header, and nothing of the full one.
    bundle = finders.find("vendor/plotly-basic.min.js")
    with open(bundle, encoding="utf-8") as opened:
        assert "Licensed under the MIT license" in opened.read(300)
    assert not finders.find("vendor/plotly.min.js")
    assert not re.search(r'<script[^>]+src="https?://', html)


def test_it_shows_the_verified_badge_and_the_rank(client):
    contest = SubmissionFactory(seconds_to_target=86_400.0).contest
    SubmissionFactory(contest=contest, seconds_to_target=2 * 86_400.0)
    entry = SubmissionFactory(contest=contest, verified=True, seconds_to_target=3 * 86_400.0)
    SubmissionFactory(contest=contest, seconds_to_target=4 * 86_400.0)

    html = client.get(entry.get_absolute_url()).content.decode()

    assert ">Verified</span>" in html
    assert "Rank 3</a>" in html


def test_it_renders_the_solution_markdown_without_scripts(client):
    entry = SubmissionFactory(
        solution_description="**Fractal trees**\n\n<script>alert(1)</script>[x](javascript:alert(2))"
    )

    html = client.get(entry.get_absolute_url()).content.decode()

    assert "<strong>Fractal trees</strong>" in html
    assert "<script>alert(1)" not in html
    assert "javascript:alert" not in html


def test_it_links_the_original_log_for_download(client):
    entry = SubmissionFactory(log_name="run-2008.log")

    html = client.get(entry.get_absolute_url()).content.decode()
    response = client.get(f"/entries/{entry.pk}/log/")

    assert f'href="/entries/{entry.pk}/log/">download run-2008.log</a>' in html
    assert b"".join(response.streaming_content) == b"placeholder log\n"
