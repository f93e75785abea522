"""The rules only a streamed run can be judged by, applied when it is sealed. Pure: plain data
in (the parsed log's report lines, when the registry received each batch, what the machine
looked like, what was declared), verdicts out, like `submissions/contests/rules.py`.

- the clock agrees: a log line cannot claim more elapsed time than the registry saw pass
  before it received the line, give or take a slack that grows with the time the registry has
  watched (a share of it, capped): a fast-forwarded log fails, and so does a short made-up log
  sent in a hurry, since no run fits whole in its slack; nor may a line arrive much later than
  it says (a log held back and streamed at the end fails);
- the machine the client reported is the declared one: cores, memory and drive kind. The client
  reports them; the registry observes nothing of the machine, so a pass here means the client's
  word agrees with the declaration, nothing more (an honest mismatch is still worth catching);
- the server the client read (its own version string, `--db`) is the declared one;
- the run ended cleanly: exit status 0.

"Streamed" is what the registry observed: the lines arrived as the run went, the clock
agreeing. A stream that fails another rule (another machine, another server) is still a
stream, and not eligible, saying which rule.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from submissions.contests.machine import MEMORY_TOLERANCE, memory_agrees
from submissions.contests.rules import RuleVerdict, Status, _n


@dataclass(frozen=True)
class Receipt:
    """A batch as the registry received it: its lines (1-based, inclusive) and when, in seconds
    after the run was opened."""

    first_line: int
    last_line: int
    seconds: float


@dataclass(frozen=True)
class ClockTolerance:
    seconds: float  # the log may run at most this far ahead of the receipt clock ...
    fraction: float  # ... and at most this share of the time the registry had watched by then
    max_lag_seconds: float  # a line may arrive at most this long after its own time

    def ahead(self, watched: float) -> float:
        """How far a line received `watched` seconds after the run opened may claim to be ahead
        of the registry's clock. A share of the time watched, not a fixed slack: with a fixed
        60 s, a made-up 47 s log sent in 2 s agreed. A faked run now costs at least
        1 / (1 + fraction) of its length in wall-clock time, however short it is. An honest
        client opens the run before it starts the benchmark, so its lines are behind."""
        return min(self.seconds, self.fraction * max(watched, 0.0))

    def describe(self, watched: float) -> str:
        return (
            f"the clock allowed the log {self.ahead(watched):.1f} s ahead: "
            f"{self.fraction:.0%} of the {_n(round(watched))} s the registry watched, "
            f"at most {_n(round(self.seconds))} s"
        )


@dataclass(frozen=True)
class Report:
    line: int
    rows: int
    seconds: float


def _receipt_of(line: int, receipts: Sequence[Receipt], last_lines: list[int]) -> Receipt | None:
    index = bisect.bisect_left(last_lines, line)
    if index < len(receipts) and receipts[index].first_line <= line:
        return receipts[index]
    return None


def check_clock(
    reports: Sequence[Report], receipts: Sequence[Receipt], tolerance: ClockTolerance
) -> RuleVerdict:
    if not reports:
        return RuleVerdict(
            "clock_agrees", Status.UNVERIFIED, "The log has no report lines to time."
        )
    ordered = sorted(receipts, key=lambda r: r.first_line)
    last_lines = [r.last_line for r in ordered]
    for report in reports:
        receipt = _receipt_of(report.line, ordered, last_lines)
        if receipt is None:
            continue
        allowed = receipt.seconds + tolerance.ahead(receipt.seconds)
        if report.seconds > allowed:
            return RuleVerdict(
                "clock_agrees",
                Status.FAIL,
                f"line {report.line:,}: the log says {_n(round(report.seconds))} s had passed "
                f"at {report.rows:,} rows, but the registry received the line "
                f"{_n(round(receipt.seconds))} s after the run began "
                f"({tolerance.describe(receipt.seconds)}).",
                line=report.line,
                value=f"{report.seconds:g} s",
                limit=f"{allowed:.1f} s",
            )
        lag = receipt.seconds - report.seconds
        if lag > tolerance.max_lag_seconds:
            return RuleVerdict(
                "clock_agrees",
                Status.FAIL,
                f"line {report.line:,}: the log says {_n(round(report.seconds))} s had passed, "
                f"but the registry received the line only {_n(round(receipt.seconds))} s after "
                f"the run began ({_n(round(lag))} s late).",
                line=report.line,
                value=f"{lag:.0f} s late",
                limit=f"{tolerance.max_lag_seconds:.0f} s",
            )
    last = reports[-1]
    watched = max((receipt.seconds for receipt in ordered), default=0.0)
    return RuleVerdict(
        "clock_agrees",
        Status.PASS,
        f"The log's {_n(round(last.seconds))} s agree with the registry's clock, line by line "
        f"({tolerance.describe(watched)}).",
    )


def check_machine(declared: Mapping, machine: Mapping) -> RuleVerdict:
    reported_cores = {machine.get("cores"), machine.get("logical_cpus")} - {None}
    mismatches = []
    if reported_cores and declared["cores"] not in reported_cores:
        mismatches.append(
            f"cores: declared {declared['cores']}, the client reported "
            f"{machine.get('cores')} ({machine.get('logical_cpus')} logical)"
        )
    memory = machine.get("memory_bytes")
    if memory and not memory_agrees(memory, declared["memory_gb"]):
        mismatches.append(
            f"memory: declared {declared['memory_gb']:g} GB, the client reported "
            f"{memory / 2**30:.1f} GiB (within {MEMORY_TOLERANCE:.0%} agrees)"
        )
    drive = (machine.get("datadir") or {}).get("kind")
    beneath = drive == "virtual" and declared["drive_kind"] not in ("", "virtual")
    if beneath:
        drive = None  # a virtual volume says nothing of the declared drive beneath it
    if drive and drive != declared["drive_kind"]:
        mismatches.append(f"drive: declared {declared['drive_kind']}, the client reported {drive}")
    if mismatches:
        return RuleVerdict(
            "machine_declared",
            Status.FAIL,
            "The machine the client reported when the run opened is not the declared one: "
            + "; ".join(mismatches)
            + ".",
            value="; ".join(mismatches),
        )
    unreported = [
        name
        for name, reported in (("cores", reported_cores), ("memory", memory), ("drive", drive))
        if not reported
    ]
    if unreported:
        why = (
            "drive: the data directory is on a virtual volume, whose flags say nothing of the "
            f"declared {declared['drive_kind']} beneath it"
            if beneath
            else "drive: run with --datadir"
        )
        return RuleVerdict(
            "machine_declared",
            Status.UNVERIFIED,
            f"The client did not report its {', '.join(unreported)} ({why}).",
        )
    return RuleVerdict(
        "machine_declared",
        Status.PASS,
        f"The client reported the declared machine: {declared['cores']} cores, "
        f"{declared['memory_gb']:g} GB, {declared['drive_kind']} (as reported by the client, "
        "not observed by the registry).",
    )


def _major_minor(version: str) -> tuple[int, int] | None:
    found = re.match(r"\s*[vV]?(\d+)\.(\d+)", version or "")
    return (int(found[1]), int(found[2])) if found else None


def check_server_version(declared: Mapping, machine: Mapping) -> RuleVerdict:
    """The server's own version string, as the client read it, beside the declared one: they
    agree when their major.minor agree (and a MariaDB server is declared as MariaDB)."""
    declared_version = str(declared.get("server_version") or "").strip()
    family = str(declared.get("server_family") or "")
    witnessed = str(((machine.get("db") or {}).get("version")) or "").strip()
    if not witnessed:
        return RuleVerdict(
            "server_version_witnessed",
            Status.UNVERIFIED,
            f"Declared {declared_version}; the client did not read the server's version "
            "(run it with --db).",
            value=declared_version,
        )
    shown = f"declared {declared_version or '(none)'}, the server said {witnessed}"
    same = _major_minor(witnessed) is not None and _major_minor(witnessed) == _major_minor(
        declared_version
    )
    mariadb = "mariadb" in witnessed.lower()
    if same and (not mariadb or family in ("", "mariadb")):
        return RuleVerdict(
            "server_version_witnessed",
            Status.PASS,
            f"Server version: {shown} (read by the client, not observed by the registry).",
            value=witnessed,
            limit=declared_version,
        )
    return RuleVerdict(
        "server_version_witnessed",
        Status.FAIL,
        f"Server version: {shown}: the run was not made on the declared server.",
        value=witnessed,
        limit=declared_version,
    )


def check_exit(exit_status: int | None) -> RuleVerdict:
    if exit_status == 0:
        return RuleVerdict("exit_status", Status.PASS, "The benchmark exited with status 0.")
    if exit_status is None:
        return RuleVerdict("exit_status", Status.FAIL, "The run was sealed without an exit status.")
    return RuleVerdict(
        "exit_status",
        Status.FAIL,
        f"The benchmark exited with status {exit_status}, not 0: the run did not end cleanly.",
        value=str(exit_status),
    )


SEAL_RULE_SENTENCES = {
    "clock_agrees": "Streamed: the log's elapsed seconds track the registry's receipt clock.",
    "machine_declared": "Streamed: the client reported the declared cores, memory and drive "
    "kind (the client's word: the registry observes nothing of the machine).",
    "exit_status": "Streamed: the client reported that the benchmark exited with status 0.",
    "server_version_witnessed": "Streamed: the server's own version string, as the client "
    "read it, is the declared version.",
}


def seal_verdicts(
    *,
    reports: Sequence[Report],
    receipts: Sequence[Receipt],
    tolerance: ClockTolerance,
    declared: Mapping,
    machine: Mapping,
    exit_status: int | None,
) -> list[RuleVerdict]:
    return [
        check_clock(reports, receipts, tolerance),
        check_machine(declared, machine),
        check_server_version(declared, machine),
        check_exit(exit_status),
    ]


def streamed(verdicts: Sequence[RuleVerdict]) -> bool:
    """Streamed with the clock agreeing: what the `streamed` trust level means (stored as
    LiveRun.witnessed). What the client reported of the machine and the server is judged by
    rules of its own, whose failure makes the entry ineligible, not its stream unstreamed."""
    passed = {v.rule for v in verdicts if v.status == Status.PASS}
    return "clock_agrees" in passed
