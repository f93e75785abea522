"""The seal rules of a streamed run, as pure functions over plain data."""

import subprocess
import sys

from submissions.contests.rules import Status
from submissions.live.seal_rules import (
    ClockTolerance,
    Receipt,
    Report,
    check_clock,
    check_exit,
    check_machine,
    streamed,
)

TOLERANCE = ClockTolerance(seconds=60, fraction=0.05, max_lag_seconds=86_400)
DECLARED = {"cores": 8, "memory_gb": 16, "drive_kind": "hdd"}


def honest(reports: int, every: float = 100.0, delay: float = 2.0):
    """A report every `every` seconds, each received `delay` seconds after the log says."""
    lines = [
        Report(line=i + 2, rows=(i + 1) * 1_000_000, seconds=(i + 1) * every)
        for i in range(reports)
    ]
    receipts = [Receipt(r.line, r.line, r.seconds + delay) for r in lines]
    return lines, receipts


def test_a_log_that_keeps_pace_with_the_registry_clock_agrees():
    assert check_clock(*honest(50), TOLERANCE).status == Status.PASS


def test_a_fast_forwarded_log_fails_naming_the_line_and_both_clocks():
    # 1,000 reports saying 19 days passed, all received within the first minute.
    reports = [Report(i + 2, (i + 1) * 1_000_000, (i + 1) * 1_693.44) for i in range(1000)]
    receipts = [Receipt(2, 1001, 55.0)]
    verdict = check_clock(reports, receipts, TOLERANCE)
    assert verdict.status == Status.FAIL
    assert verdict.line == 2
    assert verdict.message == (
        "line 2: the log says 1,693 s had passed at 1,000,000 rows, but the registry received "
        "the line 55 s after the run began (the clock allowed the log 2.8 s ahead: 5% of the "
        "55 s the registry watched, at most 60 s)."
    )


def test_a_short_made_up_log_sent_in_a_hurry_does_not_fit_in_the_slack():
    # 47 reports a second apart, all sent within 2 s: a fixed 60 s of slack let it agree.
    reports = [Report(i + 2, (i + 1) * 10_000, float(i + 1)) for i in range(47)]
    receipts = [Receipt(r.line, r.line, 0.04 * (i + 1)) for i, r in enumerate(reports)]
    verdict = check_clock(reports, receipts, TOLERANCE)
    assert verdict.status == Status.FAIL
    assert "the clock allowed the log 0.0 s ahead: 5% of the 0 s the registry watched" in (
        verdict.message
    )


def test_the_slack_is_a_share_of_the_time_watched_capped():
    assert TOLERANCE.ahead(47) == 47 * 0.05
    assert TOLERANCE.ahead(10 * 3600) == 60
    # No run fits whole in it: faking one costs at least 1/1.05 of its length.
    for watched in (1, 38, 47, 600, 86_400):
        assert watched + TOLERANCE.ahead(watched) < watched * 1.06


def test_an_honest_short_run_agrees_and_says_what_the_clock_allowed():
    reports, receipts = honest(38, every=1.0, delay=0.3)
    verdict = check_clock(reports, receipts, TOLERANCE)
    assert verdict.status == Status.PASS
    assert verdict.message == (
        "The log's 38 s agree with the registry's clock, line by line (the clock allowed the "
        "log 1.9 s ahead: 5% of the 38 s the registry watched, at most 60 s)."
    )


def test_lines_buffered_through_a_network_loss_still_agree():
    reports, receipts = honest(50)
    # Reports 10-30 were held for an hour and arrived together.
    late = [Receipt(r.first_line, r.last_line, 3_100 + 3_600) for r in receipts[10:30]]
    assert (
        check_clock(reports, receipts[:10] + late + receipts[30:], TOLERANCE).status == Status.PASS
    )


def test_a_log_held_back_and_streamed_days_later_fails():
    reports, receipts = honest(10)
    days_later = [Receipt(r.first_line, r.last_line, r.seconds + 3 * 86_400) for r in receipts]
    verdict = check_clock(reports, days_later, TOLERANCE)
    assert verdict.status == Status.FAIL
    assert "late" in verdict.message


def test_the_declared_machine_passes_with_memory_in_gib_or_gb():
    for memory in (16 * 2**30, int(15.6 * 2**30), 16 * 10**9):
        seen = {"cores": 4, "logical_cpus": 8, "memory_bytes": memory, "datadir": {"kind": "hdd"}}
        assert check_machine(DECLARED, seen).status == Status.PASS, memory


def test_another_machine_fails_with_both_values():
    seen = {"cores": 2, "logical_cpus": 2, "memory_bytes": 64 * 2**30, "datadir": {"kind": "nvme"}}
    verdict = check_machine(DECLARED, seen)
    assert verdict.status == Status.FAIL
    assert "cores: declared 8, the client reported 2 (2 logical)" in verdict.message
    assert "memory: declared 16 GB, the client reported 64.0 GiB" in verdict.message
    assert "drive: declared hdd, the client reported nvme" in verdict.message


def test_a_run_without_its_datadir_is_streamed_with_its_drive_unverified():
    seen = {"cores": 8, "logical_cpus": 8, "memory_bytes": 16 * 2**30, "datadir": None}
    verdict = check_machine(DECLARED, seen)
    assert verdict.status == Status.UNVERIFIED
    assert "--datadir" in verdict.message
    assert streamed([check_clock(*honest(3), TOLERANCE), verdict])


def test_a_stream_on_another_machine_is_still_streamed_and_fails_its_rule():
    # Issue 42: the VM's disk reports rotational, the entrant declared SSD. The lines came as
    # the run went: the stream is a stream, and the machine rule fails (not eligible).
    seen = {"cores": 8, "logical_cpus": 8, "memory_bytes": 16 * 2**30, "datadir": {"kind": "ssd"}}
    verdict = check_machine(DECLARED, seen)
    assert verdict.status == Status.FAIL
    assert streamed([check_clock(*honest(3), TOLERANCE), verdict])
    reports, _ = honest(3)
    fast_forwarded = check_clock(
        reports, [Receipt(r.line, r.line, 0.5) for r in reports], TOLERANCE
    )
    assert fast_forwarded.status == Status.FAIL
    assert not streamed([fast_forwarded, verdict])


def test_an_interrupted_run_fails_the_exit_rule():
    assert check_exit(0).status == Status.PASS
    assert "status 130" in check_exit(130).message


def test_the_seal_rules_and_trust_levels_are_pure_python():
    code = (
        "import sys; import submissions.live.seal_rules, submissions.entries.trust; "
        "sys.exit(any(name.startswith('django') for name in sys.modules))"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
