"""In a real browser: a live run's curve grows while the run streams, without a reload."""

from __future__ import annotations

import time

import pytest

from submissions.live.models import LiveSample
from testing.browser import browser_page
from testing.witness_rig import (
    c_benchmark,
    start_client,
    streaming_contest,
    the_run,
    this_machine,
    witness_token,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def points(page) -> int:
    return page.evaluate("() => document.getElementById('live-plot').data[0].x.length")


def test_a_live_runs_curve_grows_while_it_streams(live_site, tmp_path, declared):
    contest = streaming_contest(target_rows=150_000)
    _, key = witness_token(contest)
    client = start_client(
        registry=live_site.url, key=key, contest=contest, declared=this_machine(declared),
        tmp_path=tmp_path, command=c_benchmark(tmp_path, rows=150_000, rate=6_000),
    )  # fmt: skip
    try:
        while not LiveSample.objects.filter(run__contest=contest).exists():
            assert client.poll() is None, client.stderr.read().decode()
            time.sleep(0.3)
        run = the_run(contest)
        with browser_page() as page:
            page.goto(live_site.url + run.get_absolute_url())
            page.wait_for_function(
                "() => document.getElementById('live-plot').data[0].x.length > 0"
            )
            first = points(page)
            page.wait_for_function(
                f"() => document.getElementById('live-plot').data[0].x.length > {first + 3}",
                timeout=60_000,
            )
            assert page.url.endswith(run.get_absolute_url())  # no reload: the same page grew
            page.wait_for_selector("#live-run[data-state=sealed]", timeout=90_000)
            assert "Sealed: entry #" in page.inner_text("[data-field=entry]")
            assert "streamed" in page.inner_text("[data-field=entry]")
        client.wait(timeout=60)
    finally:
        if client.poll() is None:
            client.kill()
