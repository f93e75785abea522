"""The dashboard as readers see it in Chromium (issue 43): the home page's figures and chart, a
board that fits a desktop, an entry with its placement, compare, the open data page and a CPU
page, at 1280x900, 1920x1080 and 390x844, light and dark. It asserts what a reader sees (every
header inside the screen, units, no sideways scroll, a wide screen used, readable chart buttons),
and saves a screenshot of every page in every setting under var/test-artifacts/dashboard/."""

from pathlib import Path

import pytest
from django.conf import settings

from submissions.contests import ranks as contest_ranks
from submissions.entries.demo import demo_load
from submissions.models import Contest
from submissions.opendata.state import open_dataset_refresh
from testing.browser import chromium
from testing.factories import SubmissionFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(settings.BASE_DIR) / "var" / "test-artifacts" / "dashboard"
DESKTOPS = [(1280, 900), (1920, 1080)]
PHONE = (390, 844)

# What the reader sees of the page's width and of each table: the page's own sideways scroll,
# each table box's, and the header cells that end past the screen's right edge.
LAYOUT = """() => ({
  page: document.documentElement.scrollWidth - window.innerWidth,
  main: document.querySelector('main').getBoundingClientRect().width,
  tables: [...document.querySelectorAll('.table-scroll')].map(box => ({
    table: box.querySelector('table').className,
    overflow: box.scrollWidth - box.clientWidth,
    outside: [...box.querySelectorAll('thead th')].filter(th => th.offsetParent !== null &&
      th.getBoundingClientRect().right > window.innerWidth + 0.5).map(th => th.innerText.trim()),
    headers: [...box.querySelectorAll('thead th')].map(th => th.innerText.replace(/\\s+/g, ' ').trim()),
  })),
})"""
# WCAG's contrast of each chart button's text on its own fill (Plotly paints the active one).
BUTTON_CONTRAST = """() => {
  const lum = (rgb) => {
    const [r, g, b] = rgb.match(/\\d+/g).slice(0, 3).map(v => v / 255)
      .map(v => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  return [...document.querySelectorAll('.updatemenu-button')].map(button => {
    const fill = lum(getComputedStyle(button.querySelector('rect')).fill);
    const ink = lum(getComputedStyle(button.querySelector('text')).fill);
    return (Math.max(fill, ink) + 0.05) / (Math.min(fill, ink) + 0.05);
  });
}"""


@pytest.fixture
def dashboard(live_site):
    """The demo registry, and two more InnoDB entries beside the short runs' leader, so one
    has a placement among its engine's."""
    demo_load()
    short = Contest.objects.get(slug="engines-short")
    leader = short.submissions.order_by("seconds_to_target").first()
    innodb = [
        SubmissionFactory(
            contest=short,
            entrant_name=f"InnoDB run {n}",
            cpu_model="AMD EPYC (virtual, 2 vCPUs)",
            cores=2,
            memory_gb=8,
            rows=1_000_000,
            elapsed_seconds=seconds,
        )
        for n, seconds in enumerate((60.0, 90.0, 150.0), start=1)
    ]
    contest_ranks.contest_board_changed(contest_id=short.pk)
    # The open dataset built, so its page shows its file table (into the server's media root).
    assert open_dataset_refresh() == "built"
    classic = Contest.objects.get(slug="iibench-2008")
    compared = [leader.pk, *(entry.pk for entry in innodb[:2])]
    wide = [
        ("home", "/", "#engine-bests .main-svg"),
        ("board-2008", classic.get_absolute_url(), "#leaderboard"),
    ]
    desktop = [
        ("board-short", short.get_absolute_url(), "#leaderboard"),
        ("entry", innodb[1].get_absolute_url(), ".placement"),
        ("compare", f"/compare/?ids={','.join(map(str, compared))}", "#compare-curves .main-svg"),
        ("open-data", "/open-data/", "table.dataset-files"),
        ("cpu", "/cpus/AMD EPYC/", "#system-history .main-svg"),
    ]
    return {"wide": wide, "desktop": desktop, "entry": innodb[1]}


def _visit(browser, pages, width, height, scheme, seen):
    watched = browser.new_page(width=width, height=height, color_scheme=scheme)
    page = watched.page
    for name, path, shows in pages:
        response = page.goto(path)
        assert response.status == 200, (path, response.status)
        page.wait_for_selector(shows)
        seen[(name, width, scheme)] = {
            **page.evaluate(LAYOUT),
            "text": page.inner_text("main"),
            "buttons": page.evaluate(BUTTON_CONTRAST),
        }
        page.screenshot(
            path=str(ARTIFACTS / f"{name}-{width}x{height}-{scheme}.png"), full_page=True
        )
        assert watched.csp_violations() == [], name
    page.context.close()


def test_the_dashboard_reads_at_a_glance_on_desktops_and_a_phone_in_light_and_dark(
    dashboard, live_site
):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    seen = {}
    with chromium(live_site.url) as browser:
        for scheme in ("light", "dark"):
            for width, height in (*DESKTOPS, PHONE):
                _visit(browser, dashboard["wide"], width, height, scheme, seen)
            _visit(browser, dashboard["desktop"], 1280, 900, scheme, seen)
        _visit(browser, dashboard["desktop"], *PHONE, "light", seen)

    # Nowhere does the page itself scroll sideways.
    assert [key for key, layout in seen.items() if layout["page"] > 0] == []
    # At 1,280 px every table fits its box and every header is on screen.
    desktop = {key: layout for key, layout in seen.items() if key[1] in (1280, 1920)}
    squeezed = [
        (key, table["table"], table["overflow"], table["outside"])
        for key, layout in desktop.items()
        for table in layout["tables"]
        if table["overflow"] > 0 or table["outside"]
    ]
    assert squeezed == []
    # A wide screen is used: the content is not a 1,140 px column at 1,920 px.
    assert seen[("board-2008", 1920, "light")]["main"] > 1600
    # Units in every rate header, on the boards, the home page and compare.
    board_headers = seen[("board-2008", 1280, "light")]["tables"][0]["headers"]
    assert "Terminal rate (rows/s)" in board_headers and "Average rate (rows/s)" in board_headers
    home = seen[("home", 1280, "light")]["text"]
    assert "rows/s on average" in home and "Best average rate per engine over time" in home
    compare_headers = seen[("compare", 1280, "light")]["tables"][0]["headers"]
    assert "Terminal rate (rows/s)" in compare_headers
    # Each row's share of the best, and an entry's place among its engine's.
    assert "\N{MULTIPLICATION SIGN} of the best" in seen[("board-short", 1280, "light")]["text"]
    entry_text = seen[("entry", 1280, "light")]["text"]
    assert "Faster than 50% of the other InnoDB entries in this contest (1 of 2)" in entry_text
    assert "Compare with the leader" in entry_text
    # One CPU model, one page, its spellings listed.
    assert "Entered as" in seen[("cpu", 1280, "light")]["text"]
    # The chart's linear/log buttons read in both schemes (WCAG AA: 4.5:1).
    for scheme in ("light", "dark"):
        contrasts = seen[("home", 1280, scheme)]["buttons"]
        assert len(contrasts) == 2 and min(contrasts) >= 4.5, (scheme, contrasts)
