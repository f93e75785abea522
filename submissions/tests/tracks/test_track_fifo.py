"""The FIFO track (seed 002): its figures and rules, on C benchmark logs with deletes."""

from pathlib import Path

from submissions.contests.rules import Status
from testing.judging import judge_track
from testing.logs import c_fifo_log

DEMO_LOGS = Path(__file__).resolve().parents[2] / "demo_logs"
# Seed 002 at 1/1000 scale, like the demo contest.
SMALL_FIFO = {"delete_after": 250_000, "pace_tolerance": 0.01}


def judge(log: bytes, track_rules: dict | None = None, **rule_fields):
    return judge_track("fifo", log, track_rules=track_rules or SMALL_FIFO, **rule_fields)


def test_it_computes_the_fifo_figures_the_rerun_compares_with():
    judged = judge(c_fifo_log(), terminal_window_rows=10_000)

    assert judged.figures == {
        "delete_after": 250_000,
        "deletes_start_row": 250_000,
        "terminal_insert_rate": 20_000.0,
        "terminal_window_rows": 10_000,
        "rows": 500_000,
        "deleted": 250_000,
    }
    assert judged.metric == 20_000.0


def test_a_clean_fifo_run_passes_every_rule():
    verdicts = judge(c_fifo_log()).verdicts

    assert [rule for rule, v in verdicts.items() if v.status == Status.FAIL] == []
    assert verdicts["deletes_start"].message == (
        "Deletes began between 250,000 and 255,000 rows: in the report interval where "
        "250,000 rows were in."
    )
    assert verdicts["deletes_keep_pace"].status == Status.PASS


def test_it_fails_deletes_that_begin_before_the_stated_rows_and_names_the_line():
    judged = judge(c_fifo_log(deletes_from=200_000, delete_after=250_000))

    verdict = judged.verdicts["deletes_start"]
    assert verdict.status == Status.FAIL
    assert verdict.message == (
        "Deletes began between 200,000 and 205,000 rows, before the stated 250,000."
    )
    assert verdict.line == 18 + 41  # the header, then the 41st report


def test_it_fails_deletes_that_begin_more_than_one_report_late():
    verdict = judge(c_fifo_log(deletes_from=260_000)).verdicts["deletes_start"]

    assert verdict.status == Status.FAIL
    assert "more than one report after the stated 250,000 rows" in verdict.message


def test_it_fails_deletes_that_fall_behind_the_inserts():
    verdict = judge(c_fifo_log(pace=0.5)).verdicts["deletes_keep_pace"]

    assert verdict.status == Status.FAIL
    # At 255,000 rows the table is 2,500 over: just within 1%; one report later it is not.
    assert verdict.message == (
        "At 260,000 rows inserted, 5,000 were deleted: the table holds 255,000 rows, 5,000 "
        "more than the 250,000 it keeps (tolerance 2,500)."
    )
    assert verdict.limit == "250,000 ± 2,500 rows"


def test_it_fails_a_run_without_deletes_and_one_short_of_its_target():
    verdicts = judge(c_fifo_log(rows=240_000)).verdicts

    assert verdicts["deletes_start"].status == Status.FAIL
    assert verdicts["deletes_start"].message.startswith("The log shows no deletes")
    assert verdicts["target_rows"].status == Status.FAIL


def test_a_log_stating_other_delete_rows_fails_and_one_stating_none_is_unverified():
    other = judge(c_fifo_log(), {"delete_after": 200_000})
    silent = judge(c_fifo_log(state_delete_after=False), {"delete_after": 240_000})

    assert other.verdicts["delete_after"].status == Status.FAIL
    assert other.verdicts["delete_after"].message == (
        "The log states deletes after 250,000 rows; the rule is 200,000."
    )
    assert silent.verdicts["delete_after"].status == Status.UNVERIFIED
    assert silent.figures["delete_after"] == 240_000  # the contest's, when the log is silent


def test_the_rule_sentences_state_the_contests_delete_rows():
    from submissions import tracks
    from testing.judging import OPEN_RULES

    fifo = tracks.track_for("fifo")
    rules = OPEN_RULES.__class__(
        **{**OPEN_RULES.__dict__, "track": tracks.track_rules(fifo, {"delete_after": 250_000})}
    )
    sentences = {rule.id: rule.describe(rules) for rule in fifo.rule_list()}

    assert sentences["deletes_start"] == (
        "Deletes start at 250,000 rows, within one report interval."
    )
    assert sentences["target_rows"] == "The run inserts 500,000 rows."


def test_the_shipped_real_fifo_runs_pass_the_fifo_rules():
    for backend in ("mariadb", "postgresql", "sqlite"):
        log = (DEMO_LOGS / f"c-fifo-{backend}-500k.log").read_bytes()
        judged = judge(log, terminal_window_rows=10_000)
        fifo_rules = ("delete_after", "deletes_start", "deletes_keep_pace", "target_rows")

        assert [judged.verdicts[rule].status for rule in fifo_rules] == [Status.PASS] * 4
        assert judged.figures["deletes_start_row"] == 250_000
