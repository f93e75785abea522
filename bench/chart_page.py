"""An entry page's chart in headless Chromium: today's full plotly.js bundle (the plotly PyPI
package's 4.8 MB plotly.min.js, as the pages loaded it before) against the vendored partial
bundle (static/vendor/plotly-basic.min.js), both served by whitenoise compressed.

The production server (gunicorn, whitenoise's compressed manifest storage) serves an entry of
a 1,000,000,000-row run (1,000 reports) from a scratch PostgreSQL database. The full bundle is
put beside the collected files with its own compressed copies, as collectstatic made them
before; run A rewrites the page's script address to it, run B keeps the page as it is (both
pass through the same interception, so neither pays for it alone). Each run is a fresh
browser context (empty cache), A B then B A, interleaved. Printed: time from navigation start
to the drawn curve (the first trace path in the rate plot), bytes transferred for the page
and everything it loaded (Resource Timing's transferSize: headers and compressed bodies),
median and range of each, and the median ratio B/A of the time with its range.

Exits 1 when the new page transfers 1.5 MB or more, or a chart is not drawn.

    .venv/bin/python bench/chart_page.py [--pairs 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PAGES_DATABASE_URL = os.environ.get(
    "PAGES_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/iibench_pages"
)
PAGES_REDIS_URL = os.environ.get("PAGES_REDIS_URL", "redis://127.0.0.1:6379/15")
os.environ["BENCH_DATABASE_URL"] = PAGES_DATABASE_URL
os.environ["DJANGO_SETTINGS_MODULE"] = "iibench_site.settings.test"
os.environ["TEST_DATABASE_URL"] = PAGES_DATABASE_URL
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

import redis  # noqa: E402
from django.core.files.uploadedfile import SimpleUploadedFile  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from bench import ab, leaderboard_speed  # noqa: E402
from submissions.entries import services  # noqa: E402
from testing.browser import CHROMIUM, LAUNCH_ARGS  # noqa: E402
from testing.entries import DECLARED  # noqa: E402
from testing.factories import ContestFactory, UserFactory  # noqa: E402
from testing.logs import python_log  # noqa: E402
from testing.server import (  # noqa: E402
    collect_static,
    production_environment,
    start_gunicorn,
)

NEW_BUNDLE = "vendor/plotly-basic.min.js"
OLD_BUNDLE = "vendor/plotly-full.min.js"  # where this bench puts today's bundle
BUDGET_BYTES = 1_500_000

# Before the page's own scripts: the moment the rate plot holds its first drawn trace.
RECORD_DRAWN = """
window.__chartDrawn = null;
new MutationObserver((changes, observer) => {
  if (document.querySelector("#rate-curve .scatterlayer .trace path")) {
    window.__chartDrawn = performance.now();
    observer.disconnect();
  }
}).observe(document, {childList: true, subtree: true});
"""
TRANSFERRED = """() => performance.getEntriesByType("navigation")
  .concat(performance.getEntriesByType("resource"))
  .reduce((sum, entry) => sum + entry.transferSize, 0)"""


def full_bundle() -> Path:
    """The bundle the pages loaded before: the plotly PyPI package's copy."""
    import plotly

    return Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def add_old_bundle(static_root: Path) -> None:
    """Today's bundle beside the collected files, compressed as whitenoise's storage would."""
    from whitenoise.compress import Compressor

    target = static_root / OLD_BUNDLE
    shutil.copyfile(full_bundle(), target)
    for _ in Compressor(quiet=True).compress(str(target)):
        pass


def entry_path() -> str:
    contest = ContestFactory(slug="pages", title="Chart page bench", target_rows=1_000_000_000)
    entry = services.entry_create(
        contest=contest,
        owner=UserFactory(username="pages"),
        declared=DECLARED,
        log_file=SimpleUploadedFile("run.log", python_log(rows=1_000_000_000)),
    )
    return entry.get_absolute_url()


def visit(browser, url: str, old: bool) -> dict:
    """One fresh context: load the entry page, wait for the drawn curve."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.add_init_script(RECORD_DRAWN)

    def document(route):
        response = route.fetch()
        body = response.text()
        if old:
            start = body.index("/static/vendor/plotly-basic.min.")
            end = body.index('"', start)
            body = body[:start] + f"/static/{OLD_BUNDLE}" + body[end:]
        route.fulfill(response=response, body=body)

    page.route(url, document)
    page.goto(url)
    page.wait_for_function("window.__chartDrawn !== null", timeout=60_000)
    figures = {
        "seconds": page.evaluate("window.__chartDrawn") / 1000,
        "bytes": page.evaluate(TRANSFERRED),
        "bundle": page.eval_on_selector(
            "script[src*=plotly]", "script => script.getAttribute('src')"
        ),
    }
    context.close()
    return figures


def spread(values: list[float], unit: str, scale: float = 1.0, digits: int = 0) -> str:
    values = [value / scale for value in values]
    median = statistics.median(values)
    return f"{median:,.{digits}f} {unit} ({min(values):,.{digits}f}-{max(values):,.{digits}f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=5)
    args = parser.parse_args()
    if args.pairs < 5:
        parser.error("at least 5 pairs")

    leaderboard_speed.recreate_database()
    call_command("migrate", verbosity=0)
    path = entry_path()
    connection.close()

    redis.Redis.from_url(PAGES_REDIS_URL).flushdb()
    folder = Path(tempfile.mkdtemp(prefix="iibench-pages-"))
    environment = production_environment(
        database_url=PAGES_DATABASE_URL,
        static_root=folder / "static",
        media_root=folder / "media",
        redis_url=PAGES_REDIS_URL,
    )
    collect_static(environment)
    add_old_bundle(folder / "static")
    server = start_gunicorn(environment, folder / "gunicorn.log", folder / "media", workers=2)
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
            url = server.url + path
            visit(browser, url, old=False)  # warm the server's workers and the page cache
            pairs = ab.interleaved(
                lambda: visit(browser, url, old=True),
                lambda: visit(browser, url, old=False),
                pairs=args.pairs,
            )
            browser.close()
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)

    old_bytes = [run["bytes"] for run in pairs.a]
    new_bytes = [run["bytes"] for run in pairs.b]
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"chart_page: entry page of a 1,000,000,000-row run ({path}), headless Chromium, "
          f"{args.pairs} pairs interleaved A B / B A, load average {load}")  # fmt: skip
    print(f"  A full bundle   {pairs.a[0]['bundle']}")
    print(f"  B basic bundle  {pairs.b[0]['bundle']}")
    print(f"  time to the drawn curve  A {spread([r['seconds'] for r in pairs.a], 'ms', 0.001)}"
          f"  B {spread([r['seconds'] for r in pairs.b], 'ms', 0.001)}"
          f"  B/A {pairs.spread()}")  # fmt: skip
    print(f"  bytes transferred        A {spread(old_bytes, 'kB', 1000)}"
          f"  B {spread(new_bytes, 'kB', 1000)}"
          f"  (goal: B under {BUDGET_BYTES / 1e6:.1f} MB)")  # fmt: skip
    if max(new_bytes) >= BUDGET_BYTES:
        print(f"chart_page: the page transferred {max(new_bytes):,} bytes", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
