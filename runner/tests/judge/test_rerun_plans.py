import pytest

from runner.judge import RERUNS
from runner.judge.crash_recovery import crash_plan
from runner.judge.fifo import fifo_scale
from runner.judge.rerun import (
    NotPlannable,
    RerunRequest,
    RerunSpec,
    RunPlan,
    TargetOptions,
    benchmark_arguments,
)

PLAN = RunPlan(
    binary="/bin/iibench",
    db_url="sqlite:///x.db",
    rows=20_000,
    rows_per_commit=1_000,
    rows_per_insert=1_000,
    seed=7,
)
SEED_002 = {
    "delete_after": 250_000_000,
    "deletes_start_row": 250_000_000,
    "terminal_insert_rate": 5_088.0,
    "terminal_window_rows": 10_000_000,
}


def spec(workload: str, figures: dict | None = None, **changes) -> tuple[str, RerunSpec]:
    values = {
        "plan": PLAN,
        "figures": figures or {},
        "claimed_rows": 500_000_000,
        "options": TargetOptions(),
        "scratch_dir": "/var/reruns/rerun-7-load",
        **changes,
    }
    return workload, RerunSpec(**values)


def rerun_steps(planned: tuple[str, RerunSpec]):
    workload, plan = planned
    return RERUNS[workload].steps(plan)


def refusal(workload: str, figures: dict, claimed_rows: int, rows: int, time_limit: int):
    request = RerunRequest(figures, claimed_rows, rows, time_limit)
    return RERUNS[workload].refusal(request)


def options_of(arguments: list[str]) -> dict[str, str]:
    """--flag value pairs after the binary (and the `load` subcommand)."""
    words = arguments[2:] if arguments[1] == "load" else arguments[1:]
    return dict(zip(words[::2], words[1::2], strict=True))


def test_a_classic_rerun_is_the_classic_command_line():
    (step,) = rerun_steps(spec("classic"))
    assert step.name == "insert"
    assert step.arguments == benchmark_arguments(PLAN)
    assert "--delete-after" not in step.arguments


def test_fifo_deletes_start_at_the_claims_proportion_of_the_rerun():
    (step,) = rerun_steps(spec("fifo", SEED_002))
    flags = options_of(step.arguments)
    assert flags["--delete-after"] == "10000"  # 250M of 500M, of 20,000 rows
    assert "--query-threads" not in flags
    scale = fifo_scale(SEED_002, 500_000_000, 20_000)
    assert scale.factor == 25_000
    # 10M of 500M is 400 rows: less than one report, so the window is one report interval.
    assert scale.terminal_window_rows == 1_000


def test_fifo_deletes_start_after_at_least_one_report_and_leave_room_for_two():
    early = fifo_scale({"delete_after": 1_000_000}, 500_000_000, 20_000)
    assert early.delete_after == 1_000
    late = fifo_scale({"delete_after": 499_000_000}, 500_000_000, 20_000)
    assert late.delete_after == 18_000


def test_a_fifo_rerun_needs_the_claims_delete_point_and_enough_rows():
    with pytest.raises(NotPlannable, match="states no row count at which its deletes start"):
        rerun_steps(spec("fifo", {}))
    with pytest.raises(NotPlannable, match="no FIFO phase"):
        fifo_scale({"delete_after": 600_000_000}, 500_000_000, 20_000)
    assert "at least 3,000 rows" in refusal("fifo", SEED_002, 500_000_000, 2_000, 3600)


def test_a_query_rerun_runs_the_targets_query_threads():
    (step,) = rerun_steps(spec("query", options=TargetOptions(query_threads=3)))
    assert options_of(step.arguments)["--query-threads"] == "3"


def test_key_types_are_three_runs_of_the_same_rows_with_writers_and_readers():
    steps = rerun_steps(spec("pk_types", options=TargetOptions(writers=2, readers=4)))
    assert [step.name for step in steps] == ["autoinc", "uuid-char", "uuid-ordered"]
    for step in steps:
        flags = options_of(step.arguments)
        assert flags["--pk"] == step.name
        assert (flags["--writers"], flags["--readers"]) == ("2", "4")
        assert flags["--reader-pause-ms"] == "100"  # seed 004's pause
        assert (flags["--rows"], flags["--seed"]) == ("20000", "7")  # the same rows each time


def test_a_bulk_load_rerun_loads_the_entrys_class():
    (step,) = rerun_steps(spec("bulk_load", {"keys": 4, "row_length": 64}))
    assert step.arguments[:2] == ["/bin/iibench", "load"]
    flags = options_of(step.arguments)
    assert (flags["--keys"], flags["--row-length"], flags["--rows"]) == ("4", "64", "20000")
    assert flags["--out"] == "/var/reruns/rerun-7-load"


@pytest.mark.parametrize(
    "figures",
    [{}, {"keys": 0, "row_length": 64}, {"keys": 4, "row_length": 32}, {"keys": "4; rm -rf /", "row_length": 64}],
)  # fmt: skip
def test_a_bulk_load_class_the_benchmark_cannot_generate_is_refused(figures):
    assert refusal("bulk_load", figures, 0, 20_000, 3600)


def test_a_crash_rerun_throttles_to_the_claims_rate_and_asks_for_more_rows_than_the_crash():
    crash = crash_plan({"insert_rate": 1_999.6}, 4_000)
    assert (crash.max_rate, crash.crash_at_rows, crash.insert_rows) == (2_000, 4_000, 8_000)
    flags = options_of(crash.insert_arguments(PLAN))
    assert (flags["--max-rate"], flags["--rows"], flags["--report-every"]) == (
        "2000",
        "8000",
        "1000",
    )


def test_a_crash_rerun_without_a_rate_or_past_the_time_limit_is_refused():
    assert "no insert rate" in refusal("crash_recovery", {}, 0, 4_000, 3600)
    assert "is not a rate" in refusal("crash_recovery", {"insert_rate": "nan"}, 0, 4_000, 3600)
    too_long = refusal("crash_recovery", {"insert_rate": 200}, 0, 1_000_000, 3600)
    assert "take 5,000 s, longer than the target's 3,600 s" in too_long
    assert refusal("crash_recovery", {"insert_rate": 200}, 0, 4_000, 3600) is None


@pytest.mark.parametrize("delete_after", ["soon", -5, float("inf"), [1]])
def test_a_fifo_delete_point_that_is_not_a_row_count_is_refused(delete_after):
    reason = refusal("fifo", {"delete_after": delete_after}, 500_000_000, 20_000, 3600)
    assert "is not a row count" in reason
