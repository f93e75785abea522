"""What a ground rule judges and what it returns, as plain data: the contest's rules as values
(`RuleSet`), what the entrant declared (`DeclaredSetup`), the entry judged (`Entry`), a rule's
verdict with its evidence (`RuleVerdict`, `Status`) and a rule itself (`Rule`). Pure: no
Django. Every module of rules (rules.py, machine.py, physics.py, each track's) imports these
from here; rules.py also answers for them, as it always has.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from submissions.logparse.model import ParsedLog
from submissions.measures.figures import Figures
from submissions.measures.numbers import number as _n

# MariaDB numbers its releases on from 10.0 (2014); 5.5 was the last one of MySQL's numbers.
MARIADB_CURRENT_SINCE = 10


class Status(StrEnum):
    PASS = "pass"  # noqa: S105 - a verdict, not a password  # nosec B105
    FAIL = "fail"
    WARN = "warn"
    UNVERIFIED = "unverified"


@dataclass(frozen=True)
class RuleSet:
    """A contest's rules, as plain values. None means no limit."""

    target_rows: int
    rows_per_commit: int
    max_rows_per_insert: int
    report_every_rows: int
    indexes_from_start: bool = True
    # A time cadence the contest also accepts: a log that reports every N seconds (the Python
    # and Java iibench) meets the rule when no two reports are further apart. None: rows only.
    report_every_seconds: int | None = None
    max_sockets: int | None = None
    max_cores: int | None = None
    max_memory_gb: float | None = None
    max_drives: int | None = None
    require_direct_attached: bool = False
    raid_allowed: bool = True
    required_mysql_version: str = ""
    preferred_os: str = ""
    deadline: datetime | None = None
    timezone: str = "UTC"
    terminal_window_rows: int | None = None
    # The contest's track parameters (Contest.track_rules with the track's defaults filled in),
    # e.g. {"delete_after": 250_000_000}: track rules read them, sentences name them.
    track: Mapping[str, int | float] = field(default_factory=dict)

    @property
    def cadence_rule(self) -> str:
        """The cadence the contest accepts, in words: rows, or rows or seconds."""
        rows = f"A report at least every {_n(self.report_every_rows)} rows"
        if self.report_every_seconds:
            return f"{rows}, or every {_n(self.report_every_seconds)} s"
        return rows

    @property
    def server_rule(self) -> str:
        """The servers `required_mysql_version` allows, in words ("" for any): "5.1" is MySQL
        5.1.x; "5.1+" is any current server of the MySQL family (MySQL 5.1 or later, Percona
        Server, MariaDB 10 or later) or PostgreSQL."""
        required = self.required_mysql_version.strip()
        if not required:
            return ""
        if required.endswith("+"):
            since = required[:-1]
            return (
                f"MySQL {since} or later (5.x, 8.x, 9.x), Percona Server {since} or later, "
                f"MariaDB {MARIADB_CURRENT_SINCE} or later (10.x, 11.x) or PostgreSQL"
            )
        return f"MySQL {required}.x"


@dataclass(frozen=True)
class DeclaredSetup:
    """What the entrant declared about the machine and the software."""

    sockets: int
    cores: int
    memory_gb: float
    drives: int
    raid_level: str
    direct_attached: bool
    os: str
    server_version: str
    storage_engine: str
    server_family: str = "mysql"  # a key of engines.SERVER_FAMILIES
    drive_kind: str = ""  # "hdd", "ssd", "nvme" (models.DriveKind); "" when not declared


@dataclass(frozen=True)
class Entry:
    """What is judged. `log` is None for a track whose figures are declared (crash recovery)
    and none was attached; `figures` is None when the log has no report lines (a bulk load,
    key-type runs). Only the rules of the contest's track are run, so none meets a None it
    cannot judge."""

    log: ParsedLog | None
    figures: Figures | None
    setup: DeclaredSetup
    submitted_at: datetime
    declared: Mapping = field(default_factory=dict)  # the track's declared fields
    track_figures: Mapping = field(default_factory=dict)
    # The command line that produced the log, as the witness client ran it (a streamed run);
    # "" for an upload, whose command nobody observed.
    command: str = ""


@dataclass(frozen=True)
class RuleVerdict:
    rule: str
    status: Status
    message: str
    line: int | None = None
    value: str | None = None
    limit: str | None = None

    def as_dict(self) -> dict:
        return {
            "rule": self.rule,
            "status": str(self.status),
            "message": self.message,
            "line": self.line,
            "value": self.value,
            "limit": self.limit,
        }

    @classmethod
    def from_dict(cls, stored: dict) -> RuleVerdict:
        return cls(
            rule=stored["rule"],
            status=Status(stored["status"]),
            message=stored["message"],
            line=stored.get("line"),
            value=stored.get("value"),
            limit=stored.get("limit"),
        )


def verdicts_from_dicts(stored: list[dict]) -> list[RuleVerdict]:
    return [RuleVerdict.from_dict(verdict) for verdict in stored]


@dataclass(frozen=True)
class Rule:
    """`sentence` is a template over RuleSet fields, so it always states this contest's limits;
    `unlimited` is the rule's own line when the contest sets no limit for it."""

    id: str
    sentence: str
    check: Callable[[Entry, RuleSet], RuleVerdict]
    unlimited: str = ""

    def describe(self, rules: RuleSet) -> str:
        values = {}
        for name in re.findall(r"{(\w+)}", self.sentence):
            value = getattr(rules, name) if hasattr(rules, name) else rules.track.get(name)
            if value is None or value == "":
                return self.unlimited or f"{self.sentence.split(':')[0]}: no limit on {name}."
            values[name] = _n(value) if isinstance(value, int | float) else value
        return self.sentence.format(**values)
