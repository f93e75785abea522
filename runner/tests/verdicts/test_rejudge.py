"""Reruns stored before the judge changed, judged again by `manage.py rerun_rejudge` from the
output they stored (runner/rejudge.py): the demo InnoDB claim and three real 1/10 reruns of it
made on this machine (submissions/tests/fixtures/logs), stored as a worker stores them."""

from __future__ import annotations

import pytest

from runner import rejudge as rejudge_module
from runner.judge.rerun import Step
from runner.models import VerificationRun
from runner.rejudge import stored_repeat_logs
from submissions.entries.demo import demo_load
from submissions.models import Contest, Submission
from testing.reruns import DEMO_ENTRY, TRUE_RERUNS, rejudge, stored_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo_entry():
    demo_load()
    return Submission.objects.get(entrant_name=DEMO_ENTRY)


def test_a_true_claim_refuted_by_the_old_judge_is_reproduced_and_verified(demo_entry):
    run = stored_run(
        demo_entry,
        TRUE_RERUNS,
        "not_reproduced",
        "Not reproduced: terminal/initial 0.040 against the claim's 0.070 (the old judge).",
    )
    board_before = Contest.objects.get(pk=demo_entry.contest_id).board_version

    said = rejudge()

    run.refresh_from_db()
    demo_entry.refresh_from_db()
    assert run.verdict == "reproduced", run.message
    assert f"rerun {run.pk} (entry {demo_entry.pk}): not_reproduced -> reproduced" in said
    assert "1 verdicts changed" in said
    assert "at 50% of the run, at 46% of the run, at 48% of the run (the claim: at 46% of the " in (
        run.message
    )
    assert "innodb_buffer_pool_size=25M, innodb_flush_log_at_trx_commit=2 (read back); scale " in (
        run.message
    )
    assert run.finished_at == VerificationRun.objects.get(pk=run.pk).finished_at
    assert demo_entry.verified and demo_entry.verification == "reproduced"
    assert Contest.objects.get(pk=demo_entry.contest_id).board_version > board_before

    # Judged again by the same judge, it stands: nothing changes, the board stays.
    board_now = Contest.objects.get(pk=demo_entry.contest_id).board_version
    assert "0 verdicts changed" in rejudge()
    assert Contest.objects.get(pk=demo_entry.contest_id).board_version == board_now


def test_a_reproduction_the_judge_now_refutes_takes_the_badge_away(demo_entry):
    # A 40 MB pool at 300,000 rows is past its cliff only at the end of its run (94%): not a
    # 1/10 scale of the claim, whose cliff is at 46%.
    run = stored_run(
        demo_entry, ["iibench-c-mariadb-40mb-pool-300k.log"], "reproduced", "Reproduced (old)."
    )
    Submission.objects.filter(pk=demo_entry.pk).update(verification="reproduced")

    rejudge()

    run.refresh_from_db()
    demo_entry.refresh_from_db()
    assert run.verdict == "not_reproduced", run.message
    assert not demo_entry.verified and demo_entry.verification == "not_reproduced"


def test_a_rerun_whose_output_is_not_all_there_is_left_as_it_is(demo_entry):
    run = stored_run(
        demo_entry,
        TRUE_RERUNS,
        "not_reproduced",
        "Not reproduced (old).",
    )
    # A log cut after its second repeat: three were run, two are stored.
    VerificationRun.objects.filter(pk=run.pk).update(log=run.log.split("# rerun repeat=3")[0])

    assert "0 reruns judged again" in rejudge()
    run.refresh_from_db()
    assert (run.status, run.verdict) == ("succeeded", "not_reproduced")
    assert run.message == "Not reproduced (old)."


def test_a_stored_output_the_parser_cannot_read_leaves_the_rerun_as_it_was(demo_entry):
    run = stored_run(demo_entry, ["iibench-c-mariadb-40mb-pool-300k.log"], "reproduced", "Old.")
    VerificationRun.objects.filter(pk=run.pk).update(
        log=run.log.replace("# iibench-c version=", "# iibench-c version=\ngarbage ")
    )

    assert "0 reruns judged again" in rejudge()
    run.refresh_from_db()
    assert (run.status, run.verdict, run.message) == ("succeeded", "reproduced", "Old.")


def test_each_repeat_and_step_is_read_back_from_the_stored_log():
    steps = [Step("load", "a bulk load", [], 0), Step("query", "queries", [], 0)]
    log = (
        "# rerun server: private mariadb pid=1 port=2\n"
        "# rerun repeat=1 of 2\n"
        "# rerun step=load (1 of 2): a bulk load\nL1\n"
        "# rerun step=query (2 of 2): queries\nQ1\n"
        "# rerun repeat=2 of 2\n"
        "# rerun step=load (1 of 2): a bulk load\nL2\n"
        "# rerun step=query (2 of 2): queries\nQ2\n"
    )
    assert stored_repeat_logs(log, 2, steps) == [
        {"load": "L1\n", "query": "Q1\n"},
        {"load": "L2\n", "query": "Q2\n"},
    ]
    one = [Step("insert", "inserts", [], 0)]
    single = "# rerun server: private mariadb pid=1 port=2\n# iibench-c version=1\n1\t2\n"
    assert stored_repeat_logs(single, 1, one) == [{"insert": "# iibench-c version=1\n1\t2\n"}]


def test_a_run_the_judge_trips_on_is_left_and_the_others_are_judged(demo_entry, monkeypatch):
    # The site's start runs the command: one stored run must not stop it, nor the others.
    tripping = stored_run(demo_entry, TRUE_RERUNS, "not_reproduced", "Old, tripping.")
    judged = stored_run(demo_entry, TRUE_RERUNS, "not_reproduced", "Old.")
    finish = rejudge_module.rerun_finish

    def trip_on_the_first(run, *args, **kwargs):
        if run.pk == tripping.pk:
            raise RuntimeError("a judge's bug")
        return finish(run, *args, **kwargs)

    monkeypatch.setattr(rejudge_module, "rerun_finish", trip_on_the_first)

    assert "1 reruns judged again; 1 verdicts changed" in rejudge()
    tripping.refresh_from_db()
    judged.refresh_from_db()
    assert (tripping.verdict, tripping.message) == ("not_reproduced", "Old, tripping.")
    assert judged.verdict == "reproduced"


def test_a_verdict_says_its_headline_and_resolution_in_the_api_the_panel_and_the_badge(
    demo_entry, client
):
    # The demo claim and three real 1/10 reruns of it, judged as a worker judges them: the
    # verdict's one sentence (scale, host, why) comes first, its paragraph folded behind it.
    run = stored_run(demo_entry, TRUE_RERUNS, "not_reproduced", "Old.")
    rejudge()
    run.refresh_from_db()
    assert run.verdict == "reproduced", run.message
    headline = run.result["headline"]
    assert headline.startswith("Reproduced at 1/10 on mariadb: within the host's resolution of ±")
    assert headline.endswith("; cliff at 46% vs 50%, 46%, 48%.")

    found = client.get(f"/api/reruns/{run.pk}/").json()
    assert found["headline"] == headline
    resolution = found["resolution"]
    assert set(resolution) == {"too_fast_factor", "cliff_shift", "spreads"}
    # The test settings let the fixtures stand in for a host that is not calibrated: said so.
    assert (
        resolution["spreads"] == "spreads from the project's fixtures, this host is not calibrated"
    )
    assert 1.0 < resolution["too_fast_factor"] < 1.25
    assert 0.0 < resolution["cliff_shift"] < 0.1
    assert f"a claim {resolution['too_fast_factor']:.2f}x too fast" in found["message"]

    # As a worker stores its host: described, and compared with the entry's.
    VerificationRun.objects.filter(pk=run.pk).update(host={**run.host, "cpu_model": "AMD EPYC"})
    page = client.get(demo_entry.get_absolute_url()).content.decode()
    escaped = headline.replace("'", "&#x27;")
    card = page.split(f'id="rerun-{run.pk}"')[1].split("</article>")[0]
    assert f'data-field="headline"><strong>{escaped}</strong>' in card
    assert card.index('data-field="headline"') < card.index('<details class="verdict-details">')
    assert card.index('<details class="verdict-details">') < card.index('data-field="message"')
    # The badge's tooltip says the same sentence.
    assert f'class="badge verified big" title="{escaped}"' in page
