"""In a real browser against the production server: an organizer changes the memory cap in the
admin while a visitor keeps reloading an entry's page, and a real Celery worker re-checks the
entries; the page never states a rule of one version beside a verdict of another. And an
entrant's form with a mistake: the summary at the top links to the field, and the log chosen
once is sent with the corrected form."""

import time

import pytest
from django.conf import settings

from submissions.entries import services
from submissions.models import Submission
from testing.browser import chromium, fill_declaration, log_in
from testing.entries import DECLARED, upload
from testing.factories import PASSWORD, ContestFactory, StaffFactory, UserFactory
from testing.logs import python_log

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]

MEMORY_ROW = """() => {
    const row = [...document.querySelectorAll("table.verdicts tbody tr")]
        .find(tr => tr.textContent.includes("GB of memory"));
    const cells = [...row.querySelectorAll("td")].map(td => td.textContent.trim());
    return {sentence: cells[0], status: cells[1], evidence: cells[2],
            caption: document.querySelector(".rules-caption").textContent.trim()};
}"""


@pytest.fixture
def iibench_binary() -> str:
    return str(settings.IIBENCH_BINARY)


def test_a_memory_cap_changed_in_the_admin_never_shows_a_stale_verdict(live_site, request):
    live_site.fresh_workers()  # the admin's log entry names the content type by its id
    request.getfixturevalue("worker")("redis", MEDIA_ROOT=settings.MEDIA_ROOT)
    StaffFactory(username="olga", is_superuser=True)
    contest = ContestFactory(slug="capped", target_rows=5_000_000)
    entry = services.entry_create(
        contest=contest, owner=UserFactory(), declared={**DECLARED, "memory_gb": 24},
        log_file=upload(),
    )  # fmt: skip
    assert not entry.eligible

    with chromium(live_site.url) as browser:
        organizer = browser.new_page()
        log_in(organizer, "olga", PASSWORD)
        organizer.page.goto(f"/admin/submissions/contest/{contest.pk}/change/")
        organizer.page.fill("#id_max_memory_gb", "32")
        organizer.page.get_by_role("button", name="Save", exact=True).click()
        saved = organizer.page.locator(".messagelist").inner_text()

        visitor = browser.new_page()
        seen = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            visitor.page.goto(entry.get_absolute_url())
            seen.append(visitor.page.evaluate(MEMORY_ROW))
            if "v2" in seen[-1]["caption"]:
                break
            visitor.page.wait_for_timeout(100)
        visitor.screenshot("entry-rechecked-under-v2")

    assert "Rules v2: memory cap 16 -> 32 GB" in saved
    for state in seen:
        if "at most 16 GB" in state["sentence"]:
            assert state["status"] == "fail" and "under rules v1" in state["caption"], state
            assert "over the limit of 16" in state["evidence"]
        else:
            assert "at most 32 GB" in state["sentence"], state
            assert state["status"] == "pass" and "within the limit of 32" in state["evidence"]
    last = seen[-1]
    assert "checked under rules v2 (changed" in last["caption"]
    assert "memory cap 16 -> 32 GB" in last["caption"]


def test_the_form_summary_links_to_the_field_and_the_log_is_not_chosen_again(live_site):
    UserFactory(username="ada")
    contest = ContestFactory(slug="open", target_rows=5_000_000)

    with chromium(live_site.url) as browser:
        watched = browser.new_page()
        page = watched.page
        log_in(watched, "ada", PASSWORD)
        page.goto(f"/contests/{contest.slug}/submit/")
        fill_declaration(page, {**DECLARED, "cores": "0"})
        page.set_input_files(
            "[name=log]", {"name": "run-17.log", "mimeType": "text/plain", "buffer": python_log()}
        )
        page.get_by_role("button", name="Submit and check").click()
        summary = page.locator("#error-summary")
        summary_top = summary.bounding_box()["y"]
        form_top = page.locator("form.entry-form").bounding_box()["y"]
        kept = page.locator("#kept-log").inner_text()
        watched.screenshot("form-error-summary")
        summary.get_by_role("link").first.click()
        focused = page.evaluate("document.activeElement.id || location.hash")
        page.fill("[name=cores]", "8")
        page.get_by_role("button", name="Submit and check").click()
        page.wait_for_selector("h1:has-text('Entry #')")

    assert summary_top < form_top
    assert "run-17.log" in kept
    assert focused in ("id_cores", "#id_cores")
    entry = Submission.objects.get(contest=contest)
    assert entry.log_name == "run-17.log" and entry.cores == 8 and entry.rows == 5_000_000
