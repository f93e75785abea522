"""The entry form filled from the log, in a real browser: the entrant chooses a C benchmark log
first, "Fill from my log" fills the fields it states and marks each "from the log" with the line
that states it, the rest stay asked, the contest's caps stand beside their fields, and the entry
is stored with what the log stated."""

from pathlib import Path

import pytest

from submissions.models import Submission
from testing.browser import chromium, log_in
from testing.factories import PASSWORD, ContestFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LOG = Path(__file__).parents[1] / "fixtures" / "logs" / "iibench-c-format3-mariadb.log"
STATED = {
    "cpu_model": "AMD EPYC",
    "cores": "2",
    "sockets": "1",
    "memory_gb": "23.5",
    "server_family": "mariadb",
    "server_version": "10.11.19-MariaDB-0+deb12u1",
    "storage_engine": "InnoDB",
}
ASKED = {
    "entrant_name": "Ada Entrant",
    "email": "ada@example.org",
    "cpu_ghz": "2.4",
    "drives": "1",
    "drive_kind": "ssd",
    "os": "Debian 12",
    "solution_description": "Stock MariaDB.",
}

FIELD_VALUES = """names => Object.fromEntries(names.map(name =>
  [name, document.querySelector(`[name=${name}]`).value]))"""
MARKED = """() => Array.from(document.querySelectorAll('.field[data-from-log]')).map(field =>
  [field.dataset.field, field.querySelector('.from-log').textContent,
   field.querySelector('.from-log-source').textContent])"""


def test_the_form_fills_the_fields_a_c_log_states(live_site):
    contest = ContestFactory(
        slug="open-c", title="iiBench open", target_rows=100_000, required_mysql_version="5.1+"
    )
    entrant = UserFactory(username="ada")

    with chromium(live_site.url) as browser:
        watched = browser.new_page()
        page = watched.page
        log_in(watched, entrant.username, PASSWORD)
        page.goto(f"/contests/{contest.slug}/submit/")
        cap = page.locator(".field[data-field=cores] .cap").inner_text()
        page.set_input_files("[name=log]", str(LOG))
        page.get_by_role("button", name="Fill from my log").click()
        page.wait_for_selector(".field[data-from-log]")
        status = page.locator("#fill-from-log-status").inner_text()
        values = page.evaluate(FIELD_VALUES, [*STATED, "drive_kind", "os", "drives"])
        marked = page.evaluate(MARKED)
        watched.screenshot("prefill-form")
        for name, value in ASKED.items():
            control = page.locator(f"[name={name}]")
            if name == "drive_kind":
                control.select_option(value)
            else:
                control.fill(value)
        page.get_by_role("button", name="Submit and check").click()
        page.wait_for_selector("h1:has-text('Entry #')")
        assert watched.csp_violations() == []

    assert cap == "The contest's cap: at most 8 cores in total."
    assert status.startswith("Filled from your log (iibench-c")
    assert {name: values[name] for name in STATED} == STATED
    # The log ran on a VM's disk (vda): a virtual volume is proposed (issue 42); the OS and the
    # drives stay asked.
    assert (values["drive_kind"], values["os"], values["drives"]) == ("virtual", "", "")
    assert sorted(name for name, _, _ in marked) == sorted([*STATED, "drive_kind"])
    assert all(label == "from the log" for _, label, _ in marked)
    assert ["cores", "from the log", "line 25: # machine cores 2"] in marked
    entry = Submission.objects.get(contest=contest, owner=entrant)
    assert (entry.cpu_model, entry.cores, entry.memory_gb) == ("AMD EPYC", 2, 23.5)
    assert (entry.server_family, entry.server_version) == ("mariadb", STATED["server_version"])
