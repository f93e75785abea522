"""The server settings entries ran with, side by side on the compare page.

Today they come from the C benchmark's header (`# setting` lines), read from the stored log up
to its column header only: a few hundred lines, never the reports.
"""

from __future__ import annotations

import gzip
from contextlib import nullcontext

from submissions.logparse.c_format import header_settings
from submissions.models import Submission
from submissions.setting_diff import settings_side_by_side

GZIP_MAGIC = b"\x1f\x8b"


def log_header_settings(entry: Submission) -> dict[str, str]:
    """name -> value as the entry's benchmark printed them; empty for other logs."""
    if not entry.log or entry.log_format != "iibench-c":
        return {}
    try:
        with entry.log.open("rb") as raw:
            gzipped = raw.read(2) == GZIP_MAGIC
            raw.seek(0)
            with gzip.open(raw) if gzipped else nullcontext(raw) as stream:
                lines = (line.decode("utf-8", "replace").rstrip("\r\n") for line in stream)
                return {name: setting.value for name, setting in header_settings(lines).items()}
    except (OSError, EOFError):
        # A log gone from storage or a damaged archive: no settings to show, not a 500.
        return {}


def compared_settings(entries: list[Submission]) -> dict:
    """The compare page's settings table: rows with the differences first, and the counts."""
    rows = settings_side_by_side([log_header_settings(entry) for entry in entries])
    differ = sum(row.differs for row in rows)
    return {"settings_rows": rows, "settings_differ": differ, "settings_same": len(rows) - differ}
