"""A visitor and the leaderboard of the production server in a real browser: sort by a
column, filter, compare two entries, download the board as CSV."""

import csv
import io
from pathlib import Path

import pytest

from submissions.contests import ranks as contest_ranks
from testing.browser import chromium
from testing.factories import ContestFactory, SampleSeriesFactory, SubmissionFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROWS_SCRIPT = """rows => rows.map(row => Array.from(row.cells).slice(1, 8)
    .map(cell => cell.innerText.trim()))"""


@pytest.fixture
def board(live_site):
    contest = ContestFactory(slug="board", title="Board contest")
    # Fastest to the target first; the terminal rates rank the other way round.
    for engine, seconds, terminal in (
        ("TokuDB", 1e5, 300.0),
        ("InnoDB", 2e5, 900.0),
        ("MyISAM", 3e5, 600.0),
    ):
        entry = SubmissionFactory(
            contest=contest,
            storage_engine=engine,
            entrant_name=f"{engine} fan",
            seconds_to_target=seconds,
            terminal_rate=terminal,
        )
        SampleSeriesFactory(submission=entry, count=50)
    contest_ranks.contest_board_changed(contest_id=contest.pk)
    return contest


def engines(page) -> list[str]:
    return [cells[2] for cells in page.eval_on_selector_all("table.ranking tbody tr", ROWS_SCRIPT)]


def test_a_visitor_sorts_filters_compares_and_downloads_the_board(board, live_site):
    with chromium(live_site.url) as browser:
        watched = browser.new_page()
        page = watched.page
        page.goto(f"/contests/{board.slug}/")
        by_rank = engines(page)
        watched.screenshot("board")

        page.locator("table.ranking thead").get_by_role("link", name="Terminal rate").click()
        page.wait_for_url("**sort=-terminal_rate**")
        by_terminal_rate = engines(page)
        page.locator("table.ranking thead").get_by_role("link", name="Terminal rate").click()
        page.wait_for_url("**sort=terminal_rate**")
        by_terminal_rate_reversed = engines(page)

        page.select_option("select[name=engine]", "InnoDB")
        page.get_by_role("button", name="Filter").click()
        page.wait_for_url("**engine=InnoDB**")
        filtered = engines(page)
        watched.screenshot("board-filtered")
        page.get_by_role("link", name="clear filters").click()
        page.wait_for_url(lambda url: "engine=" not in url)
        cleared = engines(page)

        page.locator("table.ranking input[name=ids]").nth(0).check()
        page.locator("table.ranking input[name=ids]").nth(2).check()
        page.get_by_role("button", name="Compare selected").click()
        page.wait_for_selector("#compare-curves .main-svg")
        watched.screenshot("board-compare")
        compared = page.evaluate(
            "() => document.getElementById('compare-curves').data.map(trace => trace.name)"
        )

        page.go_back()
        with page.expect_download() as download:
            page.get_by_role("link", name="CSV").click()
        csv_name = download.value.suggested_filename
        csv_text = Path(download.value.path()).read_text(encoding="utf-8")

    assert by_rank == ["TokuDB", "InnoDB", "MyISAM"]
    assert by_terminal_rate == ["InnoDB", "MyISAM", "TokuDB"]
    assert by_terminal_rate_reversed == ["TokuDB", "MyISAM", "InnoDB"]
    assert filtered == ["InnoDB"]
    assert sorted(cleared) == ["InnoDB", "MyISAM", "TokuDB"]
    assert [name.split(" ")[1] for name in compared] == [cleared[0], cleared[2]]
    assert csv_name == "board-leaderboard.csv"
    table = list(csv.DictReader(io.StringIO(csv_text)))
    assert [row["storage_engine"] for row in table] == cleared  # in the order on screen
