"""The rules only a streamed run can be judged by, applied when it is sealed. Pure: plain data
in (the parsed log's report lines, when the registry received each batch, what the machine
looked like, what was declared), verdicts out, like `submissions/contests/rules.py`.

- the clock agrees: a log line cannot claim more elapsed time than the registry saw pass
  before it received the line (a fast-forwarded log fails), nor arrive much later than it says
  (a log held back and streamed at the end fails);
- the machine the client reported is the declared one: cores, memory and drive kind. The client
  reports them; the registry observes nothing of the machine, so a pass here means the client's
  word agrees with the declaration, nothing more (an honest mismatch is still worth catching);
- the run ended cleanly: exit status 0.
"""

from __future__ import annotations

import bisect
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
    seconds: float  # the log may run this far ahead of the receipt clock ...
    fraction: float  # ... plus this fraction of the receipt clock (clock rates differ)
    max_lag_seconds: float  # a line may arrive at most this long after its own time


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
        allowed = receipt.seconds + tolerance.seconds + tolerance.fraction * receipt.seconds
        if report.seconds > allowed:
            return RuleVerdict(
                "clock_agrees",
                Status.FAIL,
                f"line {report.line:,}: the log says {_n(round(report.seconds))} s had passed "
                f"at {report.rows:,} rows, but the registry received the line "
                f"{_n(round(receipt.seconds))} s after the run began.",
                line=report.line,
                value=f"{report.seconds:g} s",
                limit=f"{allowed:.0f} s",
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
    return RuleVerdict(
        "clock_agrees",
        Status.PASS,
        f"The log's {_n(round(last.seconds))} s agree with the registry's clock, line by line.",
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
        return RuleVerdict(
            "machine_declared",
            Status.UNVERIFIED,
            f"The client did not report its {', '.join(unreported)} (drive: run with --datadir).",
        )
    return RuleVerdict(
        "machine_declared",
        Status.PASS,
        f"The client reported the declared machine: {declared['cores']} cores, "
        f"{declared['memory_gb']:g} GB, {declared['drive_kind']} (as reported by the client, "
        "not observed by the registry).",
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
        check_exit(exit_status),
    ]


def streamed(verdicts: Sequence[RuleVerdict]) -> bool:
    """Streamed with the clock agreeing and the client's machine facts agreeing with the
    declaration: what the `streamed` trust level means (stored as LiveRun.witnessed)."""
    passed = {v.rule for v in verdicts if v.status == Status.PASS}
    return {"clock_agrees", "machine_declared"} <= passed
