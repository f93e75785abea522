"""Judging an entry of a track the way entry_checks.entry_check does, without a database: for the
pure tests of each track's figures and rules."""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import UTC, datetime

from submissions import tracks
from submissions.contests.rules import (
    DeclaredSetup,
    Entry,
    RuleSet,
    RuleVerdict,
    check_entry,
)
from submissions.logparse import key_type_log, parse_log, parse_log_runs
from submissions.measures.figures import log_figures

OPEN_RULES = RuleSet(
    target_rows=500_000,
    rows_per_commit=1_000,
    max_rows_per_insert=1_000,
    report_every_rows=5_000,
)
VM = DeclaredSetup(
    sockets=1,
    cores=2,
    memory_gb=24,
    drives=1,
    raid_level="",
    direct_attached=False,
    os="Debian 12",
    server_family="mariadb",
    server_version="10.11.19-MariaDB",
    storage_engine="InnoDB",
)


@dataclass(frozen=True)
class Judged:
    figures: dict
    verdicts: dict[str, RuleVerdict]
    metric: float | None
    track_class: str


def judge_track(
    workload: str,
    log: bytes | None,
    *,
    declared: dict | None = None,
    track_rules: dict | None = None,
    **rule_fields,
) -> Judged:
    track = tracks.track_for(workload)
    rules = RuleSet(
        **{
            **OPEN_RULES.__dict__,
            **rule_fields,
            "track": tracks.track_rules(track, track_rules),
        }
    )
    parsed = None
    if log is not None:
        if track.log == tracks.LOG_KEY_TYPES:
            parsed = key_type_log(parse_log_runs(io.BytesIO(log)))
        else:
            parsed = parse_log(io.BytesIO(log))
    figures = log_figures(parsed, rules)
    own = tracks.clean_declared(track, declared or {})
    track_figures = track.figures(parsed, {"storage_engine": "InnoDB", **own}, rules)
    entry = Entry(
        parsed,
        figures,
        VM,
        datetime(2026, 11, 20, tzinfo=UTC),
        declared=own,
        track_figures=track_figures,
    )
    verdicts = {v.rule: v for v in check_entry(entry, rules, track.rule_list())}
    ranking = track.ranking
    return Judged(
        figures=track_figures,
        verdicts=verdicts,
        metric=ranking.metric_of(track_figures),
        track_class=ranking.class_of(track_figures),
    )


RULES_2008 = RuleSet(
    target_rows=5_000_000,
    rows_per_commit=1_000,
    max_rows_per_insert=1_000,
    report_every_rows=1_000_000,
    max_sockets=2,
    max_cores=8,
    max_memory_gb=16,
    max_drives=8,
    require_direct_attached=True,
    raid_allowed=True,
    required_mysql_version="5.1",
    preferred_os="CentOS 5",
    deadline=datetime(2009, 1, 1, 5, 0, tzinfo=UTC),
    timezone="America/New_York",
)


SUN_X4150 = DeclaredSetup(
    sockets=2,
    cores=8,
    memory_gb=16,
    drives=8,
    raid_level="RAID 5",
    direct_attached=True,
    os="CentOS 5.1",
    server_version="5.1.25-rc",
    storage_engine="InnoDB",
)


IN_TIME = datetime(2008, 12, 20, tzinfo=UTC)
