"""HTML and script an entrant types into any text field show as text in a real browser, on
every page that shows the field; no dialog opens and the CSP reports nothing."""

from urllib.parse import quote

import pytest

from submissions.entries import services
from testing.browser import chromium, log_in
from testing.entries import DECLARED, upload
from testing.factories import PASSWORD, ContestFactory, StaffFactory, UserFactory
from testing.logs import python_log

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Each fits the shortest text field (raid_level: 40 characters).
PAYLOADS = {
    "entrant_name": "<script>alert('name')</script>",
    "cpu_model": '<img src=x onerror="alert(1)">',
    "raid_level": "<svg onload=alert('raid')>",
    "os": "</dd><script>alert('os')</script>",
    "server_version": "'\"><script>alert(3)</script>",
    "storage_engine": '<a href="javascript:alert(4)">x</a>',
    "storage_engine_version": "{{ 7*7 }}<b onmouseover=alert(5)>",
    "server_config": "</pre><script>alert('config')</script>",
}
SEARCHED = "<script>alert('search')</script>"
MARKDOWN = (
    "<script>alert('solution')</script>\n\n"
    '[click](javascript:alert(6)) <img src=x onerror="alert(7)">\n\n'
    '<iframe src="javascript:alert(8)"></iframe>'
)


@pytest.fixture
def hostile_entry(live_site):
    contest = ContestFactory(slug="open", title="iiBench open", target_rows=5_000_000)
    owner = UserFactory(username="mallory")
    StaffFactory(username="olga", is_superuser=True)
    declared = {**DECLARED, **PAYLOADS, "solution_description": MARKDOWN}
    # A second, plain entry: with two curves the compare plot shows its legend.
    services.entry_create(
        contest=contest, owner=owner, declared=DECLARED, log_file=upload(python_log(4_000_000))
    )
    return services.entry_create(contest=contest, owner=owner, declared=declared, log_file=upload())


def shown(page, selector: str) -> str:
    return " ".join(page.locator(selector).all_inner_texts())


def test_script_in_every_text_field_shows_as_text_and_never_runs(hostile_entry, live_site):
    entry = hostile_entry.pk
    with chromium(live_site.url) as browser:
        visitor = browser.new_page()
        visitor.page.goto(f"/entries/{entry}/")
        visitor.page.click("summary:text('Server configuration')")
        visitor.page.wait_for_selector("#rate-curve .main-svg")
        visitor.screenshot("script-entry")
        entry_page = shown(visitor.page, "main")
        prose_scripts = visitor.page.locator(".prose script, .prose iframe, .prose img").count()
        javascript_links = visitor.page.locator("a[href^='javascript']").count()
        visitor.page.goto("/contests/open/")
        board = shown(visitor.page, "section.leaderboard")
        visitor.page.goto(f"/compare/?ids={entry},{entry - 1}")
        visitor.page.wait_for_selector("#compare-curves .main-svg")
        compare_legend = " ".join(
            visitor.page.locator("#compare-curves .legendtext").all_text_contents()
        )
        compare_links = visitor.page.locator("#compare-curves a").count()
        visitor.page.goto(f"/entries/{entry}/")
        visitor.page.click("a[title='Every result on this CPU model']")
        visitor.page.wait_for_selector("#system-history .main-svg")
        cpu_page = shown(visitor.page, "main")
        visitor.page.goto(f"/search/?q={quote(SEARCHED)}")
        search_page = shown(visitor.page, "main")

        owner = browser.new_page()
        log_in(owner, "mallory", PASSWORD)
        owner.page.goto("/entries/mine/")
        mine = shown(owner.page, "main")
        owner.page.goto(f"/entries/{entry}/edit/")
        edit_values = {
            name: owner.page.input_value(f"[name={name}]") for name in ("entrant_name", "os")
        }

        organizer = browser.new_page()
        log_in(organizer, "olga", PASSWORD)
        organizer.page.goto("/admin/submissions/submission/")
        admin_list = shown(organizer.page, "#result_list")
        organizer.page.goto(f"/admin/submissions/submission/{entry}/change/")
        admin_name = organizer.page.input_value("[name=entrant_name]")

    for name in ("entrant_name", "cpu_model", "raid_level", "os", "server_version"):
        assert PAYLOADS[name] in entry_page, name
    assert PAYLOADS["storage_engine"] in entry_page
    assert PAYLOADS["server_config"] in entry_page
    assert "{{ 7*7 }}" in entry_page  # not evaluated as a template either
    assert "alert('solution')" not in entry_page  # the Markdown cleaner drops scripts whole
    assert prose_scripts == 0
    assert javascript_links == 0
    assert PAYLOADS["entrant_name"] in board and PAYLOADS["storage_engine"] in board
    assert PAYLOADS["entrant_name"] in compare_legend
    assert compare_links == 0  # plotly's pseudo-HTML never made a javascript: link
    assert PAYLOADS["cpu_model"] in cpu_page and PAYLOADS["entrant_name"] in cpu_page
    assert SEARCHED in search_page  # the words searched, shown back as text
    assert PAYLOADS["storage_engine"] in mine
    assert edit_values == {name: PAYLOADS[name] for name in ("entrant_name", "os")}
    assert PAYLOADS["entrant_name"] in admin_list
    assert admin_name == PAYLOADS["entrant_name"]
