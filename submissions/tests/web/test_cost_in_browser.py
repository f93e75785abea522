"""A user runs the bundled C benchmark against MariaDB and PostgreSQL, uploads both runs, and
sees in a real browser (the production server, its Content-Security-Policy) what each row cost
under the rate curve, and on compare how the two servers' settings differ."""

import subprocess
from io import BytesIO

import pytest
from django.conf import settings

from submissions.entries import services
from submissions.logparse import parse_log
from testing.browser import SCREENSHOTS, chromium
from testing.entries import DECLARED, upload
from testing.factories import ContestFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROWS = 60_000
COST_PLOT = """() => {
  const plot = document.getElementById('cost-curves');
  return {panels: plot.dataset.panels.split('|'), traces: plot.data.map(t => [t.name, t.x.length]),
          xTitle: plot.layout.xaxis.title.text, svg: plot.querySelectorAll('.main-svg').length};
}"""


def target_url(target: str) -> str:
    """The scratch database of the shared server of that kind (RERUN_TARGET_*_URL)."""
    targets = settings.RERUN_TARGETS
    return targets.get(f"{target}-shared", targets[target])["url"]


def benchmark_run(target: str) -> bytes:
    """The C benchmark's output against a scratch database of the rerun targets."""
    result = subprocess.run(
        [
            str(settings.IIBENCH_BINARY),
            "--db",
            target_url(target),
            "--rows",
            str(ROWS),
            "--report-every",
            "10000",
        ],
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout


@pytest.fixture
def c_entries(live_site):
    contest = ContestFactory(slug="cost", title="Cost contest", target_rows=ROWS)
    owner = UserFactory(username="ada")
    return [
        services.entry_create(
            contest=contest,
            owner=owner,
            # Nothing declared: the settings compared are those the servers reported.
            declared={**DECLARED, "storage_engine": engine, "server_config": ""},
            log_file=upload(benchmark_run(target), f"{target}.log"),
        )
        for target, engine in (("mariadb", "InnoDB"), ("postgresql", "PostgreSQL heap"))
    ]


def test_the_cost_plots_draw_under_the_rate_curve_of_a_c_benchmark_entry(c_entries, live_site):
    entry = c_entries[0]
    with entry.log.open("rb") as log:
        series = parse_log(BytesIO(log.read())).series

    with chromium(live_site.url) as browser:
        page = browser.new_page()
        page.page.goto(entry.get_absolute_url())
        page.page.wait_for_selector("#cost-curves .main-svg")
        plot = page.page.evaluate(COST_PLOT)
        tiles = page.page.locator("section[aria-label='Cost per row'] .figure").all_inner_texts()
        page.screenshot("entry-costs")
        violations = page.csp_violations()

    assert violations == []
    assert plot["panels"] == [
        "INSERT latency (ms)",
        "CPU µs per row",
        "KiB per row",
        "database size (GiB)",
    ]
    reports = len(series)
    assert dict(plot["traces"]) == {
        "p99 latency": reports,
        "max latency": reports,
        "server CPU": reports,
        "client CPU": reports,
        "machine CPU": reports,
        "KiB written": reports,
        "KiB read": reports,
        "database size": reports,
    }
    assert plot["xTitle"] == "rows inserted"
    assert any(tile.startswith("Database size") and "GiB" in tile for tile in tiles)
    assert any(tile.startswith("Server CPU per row") and "µs" in tile for tile in tiles)
    assert any(tile.startswith("Machine CPU per row") and "µs" in tile for tile in tiles)


def test_compare_sets_the_two_servers_settings_side_by_side(c_entries, live_site):
    mariadb, postgresql = c_entries

    with chromium(live_site.url) as browser:
        page = browser.new_page()
        page.page.goto(f"/compare/?ids={mariadb.pk},{postgresql.pk}")
        page.page.wait_for_selector("#compare-settings")
        heads = page.page.locator("#compare-settings thead th").all_inner_texts()
        rows = page.page.locator("#compare-settings tbody tr").evaluate_all(
            "rows => rows.map(r => Array.from(r.cells).map(c => c.innerText))"
        )
        costs = page.page.locator("#compare-costs tbody tr").evaluate_all(
            "rows => rows.map(r => Array.from(r.cells).map(c => c.innerText))"
        )
        # A viewport's worth: the whole page (a thousand settings) is too long to shoot.
        page.page.locator("#compare-costs").scroll_into_view_if_needed()
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.page.screenshot(path=str(SCREENSHOTS / "compare-settings.png"))
        violations = page.csp_violations()

    assert violations == []
    assert heads == ["Setting", f"#{mariadb.pk}", f"#{postgresql.pk}"]
    by_name = {row[0]: row[1:] for row in rows}
    # Each server lists its own variables; the other's column has none of them.
    assert by_name["innodb_buffer_pool_size"][1] == "—"
    assert by_name["innodb_buffer_pool_size"][0].isdigit()
    assert by_name["shared_buffers"] == ["—", by_name["shared_buffers"][1]]
    assert [row[0].split()[0] for row in costs] == [f"#{mariadb.pk}", f"#{postgresql.pk}"]
    assert all(row[3].endswith("GiB") for row in costs)
