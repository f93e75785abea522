"""The machine an entry's log states, beside its declaration, for the entry page and the API:
read from the stored log up to its column header only (a few dozen lines, never the reports),
compared by the same functions as the `machine_in_log` rule (contests/machine.py)."""

from __future__ import annotations

from submissions.contests.machine import Fact, machine_facts
from submissions.entries.checks import declared_setup, entry_declared
from submissions.logparse.c_format import header_machine
from submissions.models import Submission
from submissions.setup.entry_settings import stored_log_header


def log_machine(entry: Submission) -> dict:
    """key -> Stated for a C benchmark log's `# machine` lines; empty for other logs."""
    return stored_log_header(entry, header_machine)


def entry_machine_facts(entry: Submission) -> list[Fact]:
    """Declared and "the log says", fact by fact (the log's side None where it says nothing)."""
    return machine_facts(log_machine(entry), declared_setup(entry_declared(entry)))
