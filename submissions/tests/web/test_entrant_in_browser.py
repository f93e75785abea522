"""An entrant's way through the production server in a real browser: sign up, log out, log in,
submit a run through the form, and read its verdicts and its rate curve."""

import pytest

from submissions.models import Submission
from testing.browser import chromium, fill_declaration
from testing.entries import DECLARED
from testing.factories import ContestFactory
from testing.logs import python_log

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct-horse-battery-staple-2008"


def test_a_newcomer_signs_up_submits_a_run_and_sees_its_verdicts_and_its_curve(live_site):
    contest = ContestFactory(slug="open", title="iiBench open", target_rows=5_000_000)

    with chromium(live_site.url) as browser:
        watched = browser.new_page()
        page = watched.page
        page.goto("/")
        page.get_by_role("link", name="Sign up").click()
        page.fill("[name=username]", "grace")
        page.fill("[name=email]", "grace@example.org")
        page.fill("[name=password1]", PASSWORD)
        page.fill("[name=password2]", PASSWORD)
        watched.screenshot("journey-signup")
        page.get_by_role("button", name="Create account").click()
        welcome = page.locator(".messages").inner_text()

        page.get_by_role("button", name="Log out grace").click()
        page.get_by_role("link", name="Log in").click()
        page.fill("[name=username]", "grace")
        page.fill("[name=password]", PASSWORD)
        page.get_by_role("button", name="Log in").click()

        page.get_by_role("link", name="iiBench open").first.click()
        page.get_by_role("link", name="Submit a run").click()
        fill_declaration(page, DECLARED)
        page.set_input_files(
            "[name=log]",
            {"name": "run.log", "mimeType": "text/plain", "buffer": python_log(rows=5_000_000)},
        )
        watched.screenshot("journey-submit-form")
        page.get_by_role("button", name="Submit and check").click()
        page.wait_for_selector("#rate-curve .main-svg")
        watched.screenshot("journey-entry")
        confirmation = page.locator(".messages").inner_text()
        heading = page.locator("h1").inner_text()
        badge = page.locator(".verdict-summary .badge").first.inner_text()
        verdicts = page.eval_on_selector_all(
            "table.verdicts tbody tr",
            "rows => rows.map(row => [row.cells[0].innerText, row.cells[1].innerText])",
        )
        traces = page.evaluate(
            """() => document.getElementById("rate-curve").data
                .map(trace => [trace.name, trace.x.length])"""
        )

    entry = Submission.objects.get(contest=contest, owner__username="grace")
    assert welcome == "Welcome, grace. You can submit a run now."
    assert confirmation == "Your run is in. Here are its figures and verdicts."
    assert heading == f"Entry #{entry.pk}: InnoDB"
    assert badge.lower() == "eligible"
    assert ["The run inserts 5,000,000 rows.", "PASS"] in verdicts
    assert ["Hardware: at most 8 cores in total.", "PASS"] in verdicts
    assert len(verdicts) == len(entry.verdicts)
    assert traces == [["interval", 5], ["cumulative", 5]]
    assert entry.rows == 5_000_000
