"""Every main page of the production server in a real browser: it renders, with no console
error and no Content-Security-Policy violation; a screenshot of each is kept under
var/screenshots/."""

import pytest

from submissions.entries import services
from testing.browser import chromium, log_in
from testing.entries import DECLARED, upload
from testing.factories import PASSWORD, ContestFactory, StaffFactory, UserFactory
from testing.logs import python_log

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def site_data(live_site):
    contest = ContestFactory(slug="open", title="iiBench open", target_rows=5_000_000)
    entrant = UserFactory(username="ada")
    first, second = (
        services.entry_create(
            contest=contest,
            owner=entrant,
            declared={**DECLARED, "storage_engine": engine},
            log_file=upload(python_log(rows=rows)),
        )
        for engine, rows in (("InnoDB", 5_000_000), ("TokuDB", 4_000_000))
    )
    return {
        "contest": contest,
        "entrant": entrant,
        "organizer": StaffFactory(username="olga", is_superuser=True),
        "entries": (first, second),
    }


# (screenshot name, path, what the page must show once it has rendered)
VISITOR_PAGES = [
    ("home", "/", "text=iiBench open"),
    ("contest", "/contests/open/", "table.ranking >> text=InnoDB"),
    ("entry", "/entries/{first}/", "#rate-curve .main-svg"),
    ("compare", "/compare/?ids={first},{second}", "#compare-curves .main-svg"),
    ("login", "/accounts/login/", "text=No account?"),
    ("signup", "/accounts/signup/", "text=Create account"),
    ("open-data", "/open-data/", "text=Reading it"),
    ("api-docs", "/api/docs/", ".swagger-ui .info >> text=iiBench registry API"),
]
ENTRANT_PAGES = [
    ("submit", "/contests/open/submit/", "text=Submit and check"),
    ("my-entries", "/entries/mine/", "text=InnoDB"),
    ("entry-edit", "/entries/{first}/edit/", "text=Save"),
    ("account", "/account/", "text=Tokens"),
]
ORGANIZER_PAGES = [
    ("entry-organizer", "/entries/{first}/", "text=Start a rerun"),
    ("admin", "/admin/", "text=Site administration"),
    ("admin-entries", "/admin/submissions/submission/", "#result_list"),
    ("admin-entry", "/admin/submissions/submission/{first}/change/", "text=Change submission"),
    ("admin-contest", "/admin/submissions/contest/{contest}/change/", "text=Hardware caps"),
]


def visit_all(page, pages, ids) -> dict[str, list[str]]:
    """Visit each page, wait for what it must show, screenshot it; return its CSP violations."""
    violations = {}
    for name, path, shows in pages:
        response = page.page.goto(path.format(**ids))
        assert response.status == 200, (path, response.status)
        page.page.wait_for_selector(shows)
        page.screenshot(name)
        violations[name] = page.csp_violations()
    return violations


def test_the_main_pages_render_without_console_errors_or_csp_violations(site_data, live_site):
    first, second = site_data["entries"]
    ids = {"first": first.pk, "second": second.pk, "contest": site_data["contest"].pk}

    with chromium(live_site.url) as browser:
        visitor = browser.new_page()
        seen = visit_all(visitor, VISITOR_PAGES, ids)
        entrant = browser.new_page()
        log_in(entrant, "ada", PASSWORD)
        seen |= visit_all(entrant, ENTRANT_PAGES, ids)
        organizer = browser.new_page()
        log_in(organizer, "olga", PASSWORD)
        seen |= visit_all(organizer, ORGANIZER_PAGES, ids)

    assert seen == {name: [] for name, _, _ in VISITOR_PAGES + ENTRANT_PAGES + ORGANIZER_PAGES}


def test_static_files_come_hashed_and_compressed_from_whitenoise(site_data, live_site):
    with chromium(live_site.url) as browser:
        page = browser.new_page()
        page.page.goto(f"/entries/{site_data['entries'][0].pk}/")
        scripts = page.page.eval_on_selector_all("script[src]", "els => els.map(e => e.src)")
        plotly = next(src for src in scripts if "plotly" in src)
        response = page.page.request.get(plotly, headers={"Accept-Encoding": "gzip"})
        headers = response.headers

    assert all(". " not in src and "/static/" in src for src in scripts)
    # The manifest storage names every file by its content hash: cacheable for ever.
    assert plotly.rsplit("/", 1)[1].count(".") == 3  # plotly-basic.min.<hash>.js
    assert "max-age=315360000" in headers["cache-control"]
    assert headers.get("content-encoding") in ("gzip", "br")
