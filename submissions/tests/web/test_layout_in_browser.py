"""The main pages as readers see them on a desktop (1280 px) and a phone (390 px), in light and
dark: the page itself never scrolls sideways (wide tables scroll in their own box), dark mode
follows the system setting, a skip link leads to the content, every chart names its key
figures, and the compare page keeps every curve visible beside a 1,000,000,000-row reference.
Screenshots of each page in each setting go to the test's temporary folder."""

import pytest

from runner.models import RerunSample, VerificationRun
from submissions.entries.demo import DEMO_USERS, demo_load
from submissions.live import services as live_services
from submissions.models import Contest, ReferenceResult, Submission
from testing.browser import chromium, log_in
from testing.entries import DECLARED

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ORGANIZER, ORGANIZER_PASSWORD, _ = DEMO_USERS[0]
# What the site's stylesheet paints the page with in each scheme (--bg).
BACKGROUND = {"light": "rgb(251, 251, 250)", "dark": "rgb(11, 17, 32)"}

OVERFLOW = """() => ({scroll: document.documentElement.scrollWidth, inner: window.innerWidth})"""
# Each curve's drawn width as a share of the plot area's, from the SVG the reader sees.
CURVE_EXTENTS = """() => {
  const plot = document.getElementById('compare-curves');
  const width = plot._fullLayout._size.w;
  return Array.from(plot.querySelectorAll('.scatterlayer .trace')).map((trace, i) => ({
    name: plot.data[i].name, share: trace.getBBox().width / width}));
}"""


@pytest.fixture
def demo_site(live_site):
    """The demo contests and entries, a live run streaming and a finished rerun."""
    demo_load()
    open_contest = Contest.objects.get(slug="iibench-open")
    curves = list(
        Submission.objects.filter(contest=open_contest, series__isnull=False).order_by("pk")[:3]
    )
    entrant = curves[0].owner
    token, _ = live_services.witness_token_create(user=entrant, contest=open_contest)
    run, _ = live_services.live_run_open(
        token=token, run_key="layout-run-0001", declared=dict(DECLARED), machine={"cores": 8}
    )
    rerun = VerificationRun.objects.create(
        submission=curves[0], target="sqlite", rows_target=100_000, status="succeeded",
        rows_done=100_000,
    )  # fmt: skip
    RerunSample.objects.bulk_create(
        RerunSample(
            run=rerun,
            rows=step * 10_000,
            seconds=step * 1.0,
            interval_rate=20_000 / (1 + step / 5),
            cumulative_rate=20_000 / (1 + step / 10),
        )
        for step in range(1, 11)
    )
    reference = ReferenceResult.objects.filter(
        contest__slug="iibench-2008", rows=1_000_000_000
    ).first()
    pages = [("home", "/", "text=iiBench")]
    cpu = curves[0].cpu_model
    pages += [
        ("search", f"/search/?q={curves[0].engine}", "#search-count"),
        ("engine", f"/engines/{curves[0].engine}/", "#system-history .main-svg"),
        ("cpu", f"/cpus/{cpu}/", "#system-history .main-svg"),
    ]
    pages += [
        (f"board-{contest.slug}", contest.get_absolute_url(), "#leaderboard")
        for contest in Contest.objects.order_by("pk")
    ]
    track_entry = Submission.objects.filter(contest__slug="pk-types").order_by("pk").first()
    ids = ",".join(str(entry.pk) for entry in curves)
    pages += [
        ("entry", curves[0].get_absolute_url(), "#rate-curve .main-svg"),
        ("entry-track", track_entry.get_absolute_url(), "#track-plot .main-svg"),
        ("compare", f"/compare/?ids={ids}&refs={reference.pk}", "#compare-curves .main-svg"),
        ("live-run", run.get_absolute_url(), "#live-plot .main-svg"),
        ("rerun", f"/reruns/{rerun.pk}/", f"#rerun-plot-{rerun.pk} .main-svg"),
        ("submit", f"/contests/{open_contest.slug}/submit/", "text=Submit and check"),
        ("account", "/account/", "text=Tokens"),
    ]
    return {"pages": pages, "compare": pages[-5][1], "entry": curves[0]}


def test_the_main_pages_fit_both_widths_in_light_and_dark(demo_site, live_site, tmp_path):
    overflowing, backgrounds, plot_papers = [], {}, {}
    with chromium(live_site.url) as browser:
        for scheme in ("light", "dark"):
            for width in (1280, 390):
                page = browser.new_page(width=width, color_scheme=scheme)
                log_in(page, ORGANIZER, ORGANIZER_PASSWORD)
                for name, path, shows in demo_site["pages"]:
                    response = page.page.goto(path)
                    assert response.status == 200, (path, response.status)
                    page.page.wait_for_selector(shows)
                    size = page.page.evaluate(OVERFLOW)
                    if size["scroll"] > size["inner"]:
                        overflowing.append(f"{name} at {width} px ({scheme}): {size['scroll']} px")
                    page.page.screenshot(
                        path=str(tmp_path / f"{name}-{width}-{scheme}.png"), full_page=True
                    )
                    assert page.csp_violations() == [], name
                backgrounds[scheme] = page.page.evaluate(
                    "getComputedStyle(document.body).backgroundColor"
                )
                page.page.goto(demo_site["entry"].get_absolute_url())
                page.page.wait_for_selector("#rate-curve .main-svg")
                plot_papers[scheme] = page.page.evaluate(
                    "document.getElementById('rate-curve')._fullLayout.paper_bgcolor"
                )
                page.page.context.close()

    assert overflowing == []
    assert backgrounds == BACKGROUND
    # The charts follow the scheme: a dark plot on a dark page, not a white card.
    assert plot_papers == {"light": "#ffffff", "dark": "#111827"}


def test_compare_beside_a_reference_row_shows_every_curve_across_the_plot(demo_site, live_site):
    with chromium(live_site.url) as browser:
        page = browser.new_page().page
        page.goto(demo_site["compare"])
        page.wait_for_selector("#compare-curves .main-svg")
        note = page.locator("#compare-note")
        note_above = page.evaluate(
            "document.getElementById('compare-note').getBoundingClientRect().bottom <= "
            "document.getElementById('compare-curves').getBoundingClientRect().top"
        )
        note_text = note.inner_text()
        fraction = page.evaluate(CURVE_EXTENTS)
        # The reader unticks the fraction view: absolute rows again, the note says what it costs.
        page.uncheck("input[name=fraction]")
        page.wait_for_function("document.getElementById('compare-curves').dataset.fraction === ''")
        absolute = page.evaluate(CURVE_EXTENTS)
        address = page.url

    assert len(fraction) == 4  # three entries' curves and the reference row
    assert note_above and "1,000,000,000 rows" in note_text
    assert "fraction of its own run" in note_text
    assert all(curve["share"] >= 0.2 for curve in fraction), fraction
    # What the fraction view rescues: in absolute rows the 1,000,000-row curves are slivers.
    assert min(curve["share"] for curve in absolute) < 0.2, absolute
    assert address.endswith("&fraction=0")


def test_skip_link_error_focus_labels_and_chart_descriptions(demo_site, live_site):
    with chromium(live_site.url) as browser:
        watched = browser.new_page()
        page = watched.page
        page.goto(demo_site["entry"].get_absolute_url())
        page.wait_for_selector("#rate-curve .main-svg")
        captions = page.eval_on_selector_all(
            ".plot", "plots => plots.map(p => p.closest('figure')?.querySelector('figcaption')"
            "?.textContent.trim() || '')",
        )  # fmt: skip
        page.keyboard.press("Tab")
        first_stop = page.evaluate("document.activeElement.textContent")
        page.keyboard.press("Enter")
        after_skip = page.evaluate("document.activeElement.id")

        log_in(watched, ORGANIZER, ORGANIZER_PASSWORD)
        page.goto("/contests/iibench-open/submit/")
        labels = [
            page.inner_text("label[for=id_cpu_model]"),
            page.inner_text("label[for=id_raid_level]"),
        ]
        page.get_by_role("button", name="Submit and check").click()
        page.wait_for_selector("#error-summary")
        focused = page.evaluate("document.activeElement.id")

    entry = demo_site["entry"]
    assert first_stop == "Skip to main content"
    assert after_skip == "main"
    assert captions and all(captions), captions
    assert f"{entry.rows:,} rows" in captions[0] and "terminal rate" in captions[0]
    assert labels == ["CPU model:", "RAID level:"]
    assert focused == "error-summary"
