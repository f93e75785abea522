"""The machine an entry's log states, beside its declaration, for the entry page and the API:
read from the stored log up to its column header only (a few dozen lines, never the reports),
compared by the same functions as the `machine_in_log` rule (contests/machine.py)."""

from __future__ import annotations

import gzip
from contextlib import nullcontext

from submissions.contests.machine import Fact, machine_facts
from submissions.entries.checks import declared_setup, entry_declared
from submissions.logparse.c_format import header_machine
from submissions.models import Submission

GZIP_MAGIC = b"\x1f\x8b"


def log_machine(entry: Submission) -> dict:
    """key -> Stated for a C benchmark log's `# machine` lines; empty for other logs."""
    if not entry.log or entry.log_format != "iibench-c":
        return {}
    try:
        with entry.log.open("rb") as raw:
            gzipped = raw.read(2) == GZIP_MAGIC
            raw.seek(0)
            with gzip.open(raw) if gzipped else nullcontext(raw) as stream:
                lines = (line.decode("utf-8", "replace").rstrip("\r\n") for line in stream)
                return header_machine(lines)
    except (OSError, EOFError):
        # A log gone from storage or a damaged archive: nothing stated, not a 500.
        return {}


def entry_machine_facts(entry: Submission) -> list[Fact]:
    """Declared and "the log says", fact by fact (the log's side None where it says nothing)."""
    return machine_facts(log_machine(entry), declared_setup(entry_declared(entry)))
