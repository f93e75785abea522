"""An organizer starts a rerun from an entry's page on the production server, in a real
browser, and watches it progress to its verdict without reloading: gunicorn enqueues it on
Redis, a real Celery worker runs the C benchmark."""

import re
import time

import pytest

from runner.fleet import no_comparable_host
from runner.models import RerunStatus, VerificationRun
from runner.targets import rerun_targets
from testing.browser import chromium, log_in
from testing.factories import PASSWORD, StaffFactory

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]

# 6 to 12 s on SQLite on a small machine: a report every 2,000 rows, polled every second.
RERUN_ROWS = 200_000

CARD_STATE = """card => ({
    status: card.querySelector('[data-field="status"]').textContent.trim(),
    statusShown: getComputedStyle(card.querySelector('[data-field="status"]')).display !== "none",
    done: Number(card.querySelector("progress").value),
    verdict: card.querySelector('[data-field="verdict"]').hidden
        ? "" : card.querySelector('[data-field="verdict"]').textContent.trim(),
    points: card.querySelector(".rerun-plot").data
        .filter(trace => trace.name.startsWith("rerun")).reduce((n, t) => n + t.x.length, 0),
    cancel: card.querySelectorAll(".cancel-form").length,
    timingShown: !card.querySelector(".timing").hidden,
    elapsed: card.querySelector('[data-field="elapsed"]').textContent.trim(),
    etaShown: !card.querySelector(".timing .eta").hidden,
    sameDocument: window.__sameDocument === true,
    headline: card.querySelector('[data-field="headline"]').hidden
        ? "" : card.querySelector('[data-field="headline"]').textContent.trim(),
    messageFolded: card.querySelector('[data-field="message"]').closest("details") !== null,
    claimXs: (card.querySelector(".rerun-plot").data
        .find(trace => trace.name.startsWith("claimed")) || {x: []}).x,
    xTitle: card.querySelector(".rerun-plot").layout.xaxis.title.text,
})"""


def watch_card(page, selector: str, timeout: float = 90) -> list[dict]:
    """The card's state every 200 ms until its run finishes."""
    states = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = page.eval_on_selector(selector, CARD_STATE)
        states.append(state)
        if state["status"] in ("succeeded", "failed", "cancelled", "timed out"):
            return states
        page.wait_for_timeout(200)
    pytest.fail(f"the rerun never finished on the page: {states[-1]}")


def test_an_organizer_watches_a_rerun_progress_to_its_verdict_without_a_reload(
    live_site, worker, entry
):
    StaffFactory(username="olga")
    worker("redis")

    with chromium(live_site.url) as browser:
        organizer = browser.new_page()
        page = organizer.page
        log_in(organizer, "olga", PASSWORD)
        page.goto(entry.get_absolute_url())
        page.select_option("select[name=target]", "sqlite")
        page.fill("input[name=rows]", str(RERUN_ROWS))
        # The sqlite target cannot verify an InnoDB entry: a comparison run is asked for.
        page.check("input[name=comparison]")
        page.get_by_role("button", name="Start a rerun").click()
        page.wait_for_selector("article.rerun")
        queued = page.locator(".messages").inner_text()
        navigations = []
        page.on("framenavigated", lambda frame: navigations.append(frame.url))
        page.evaluate("window.__sameDocument = true")
        states = watch_card(page, "article.rerun")
        organizer.screenshot("rerun-finished")

    run = VerificationRun.objects.get(submission=entry)
    # Sent to this machine's host when it is like the entry's declared one (8 cores, 16 GB,
    # hdd), else to the general queue, said so.
    said = f"Rerun #{run.pk} (comparison, scale 1/10, 200,000 rows, 1 run) is queued on sqlite"
    expected = (
        [f"{said}, sent to the comparable host {run.routed_host}."]
        if run.routed_host
        else [f"{said}.", no_comparable_host(rerun_targets()["sqlite"])]
    )
    assert [line for line in queued.splitlines() if line.strip()] == expected
    assert navigations == []
    assert all(state["sameDocument"] for state in states)
    progress = [state["done"] for state in states]
    assert progress == sorted(progress)
    assert any(0 < done < RERUN_ROWS for done in progress), progress  # seen mid-run
    assert "running" in [state["status"] for state in states]
    # Elapsed time and the time left follow the run without a reload: the elapsed time grows
    # while it runs.
    running = [state for state in states if state["status"] == "running"]
    assert len({state["elapsed"] for state in running if state["timingShown"]}) >= 2, running
    assert any(state["etaShown"] for state in running), running
    last = states[-1]
    assert last["status"] == "succeeded"
    # An InnoDB entry rerun on SQLite compares engines; the card shows that one outcome, not a
    # green "succeeded" beside it.
    assert last["verdict"] == "Comparison"
    assert last["statusShown"] is False
    assert last["done"] == RERUN_ROWS
    assert last["points"] == run.samples.count() == 100
    assert last["cancel"] == 0  # the cancel button goes once the run is over
    # The verdict's one sentence first, its paragraph folded behind it, without a reload; the
    # plot draws the claim and the run over the fraction of the run, each over its start.
    run.refresh_from_db()
    assert last["headline"] == run.result["headline"]
    assert last["headline"].startswith("Comparison at 1/10 on sqlite: ")
    assert last["messageFolded"] is True
    assert last["xTitle"] == "fraction of the run"
    assert last["claimXs"]
    # In the site's one duration format, as every page says a time ("8.4 s", "1m 05s").
    assert last["timingShown"] and not last["etaShown"]
    assert re.fullmatch(r"\d+\.\d s|\d+m \d\ds", last["elapsed"]), last["elapsed"]
    assert last["elapsed"] not in ("0.0 s", "0.1 s", "0.2 s", "0.3 s", "0.4 s"), last["elapsed"]
    assert run.status == RerunStatus.SUCCEEDED
