"""What a scale can claim: a verification outside the range the scaling rule was measured on is
labelled extrapolated in its headline, message and API and cannot give `reproduced`; the default
scale keeps the pool at its floor and the runs within the time limit, and says plainly when no
scale does both."""

import html

import pytest

from runner.judge.rerun import Judgement
from runner.judge.scaling import extrapolated
from runner.models import VerificationRun
from runner.serializers import RerunSerializer
from runner.verdicts import headline, within_measured_range
from submissions.entries.demo import demo_load
from submissions.models import Submission
from submissions.setup.server_settings import MYSQL

DEMO_ENTRY = "Demo: C iiBench on MariaDB, a 128 MB buffer pool"
REPRODUCED = Judgement(
    "reproduced", 1.02, "At scale 1/20 (3 runs): reproduced.", {"headline": "within ±14%"}
)


def outside_at(scale: int, pool: str = "128M", server=("MariaDB", "10.11")):
    return extrapolated(
        {"innodb_buffer_pool_size": pool}, family=MYSQL, scale=scale, memory_gb=0, server=server
    )


def test_a_reproduction_outside_the_measured_range_is_at_best_shape_only_and_labelled():
    run = VerificationRun(scale=20, target="mariadb", result={})
    judged = within_measured_range(REPRODUCED, outside_at(20))
    assert judged.verdict == "shape_only"
    assert judged.message.startswith(
        "Extrapolated: the scaling rule was measured on MariaDB 10.11, InnoDB"
    )
    assert "the scale 1/20 (checked up to 1/15)" in judged.message
    assert headline(run, judged) == (
        "Shape only (extrapolated) at 1/20 on mariadb: the curve and rates agree, but the scale "
        "1/20 (checked up to 1/15) outside the scaling rule's measured range: shape only."
    )
    run.result = judged.result
    assert RerunSerializer().get_extrapolated(run) == judged.result["extrapolated"]


def test_a_refutation_outside_the_range_stays_a_refutation_and_is_labelled():
    refuted = Judgement("not_reproduced", 0.5, "not reproduced: the cliff is elsewhere.", {})
    judged = within_measured_range(refuted, outside_at(10, pool="1G"))
    assert judged.verdict == "not_reproduced"
    assert "the claim's innodb_buffer_pool_size of 1024M (measured 8M to 128M)" in judged.message


def test_within_the_range_nothing_is_labelled():
    assert outside_at(10) is None
    assert outside_at(15, pool="64M") is None
    assert within_measured_range(REPRODUCED, None) == REPRODUCED
    run = VerificationRun(scale=10, target="mariadb", result={})
    assert RerunSerializer().get_extrapolated(run) is None


def test_another_servers_version_is_outside_the_range_an_unknown_one_is_not():
    assert (
        "a MariaDB 11.4 server (measured on MariaDB 10.11)"
        in outside_at(10, server=("MariaDB", "11.4")).sentence()
    )
    assert outside_at(10, server=None) is None


def test_a_range_measured_on_innodb_says_nothing_of_a_claim_on_another_engine():
    pool = {"innodb_buffer_pool_size": "16G"}  # a MyRocks log prints InnoDB's unused pool too
    assert (
        extrapolated(pool, family=MYSQL, scale=10, memory_gb=0, server=None, engine="ROCKSDB")
        is None
    )
    for engine in ("InnoDB", "innodb", ""):  # unknown: the range applies
        assert extrapolated(pool, family=MYSQL, scale=10, memory_gb=0, server=None, engine=engine)


@pytest.mark.parametrize(
    ("engine", "key"), [("MyISAM", "key_buffer_size"), ("Aria", "aria_pagecache_buffer_size")]
)
def test_a_page_cache_engines_rule_holds_to_1_2_and_its_buffers_measured_sizes(engine, key):
    def outside(scale, buffer):
        found = extrapolated(
            {key: buffer}, family=MYSQL, scale=scale, memory_gb=0.1, server=None, engine=engine
        )
        return found.sentence() if found else None

    assert outside(2, "4M") is None
    assert "the scale 1/4 (checked up to 1/2)" in outside(4, "4M")
    assert f"the claim's {key} of 64M (measured 1M to 16M)" in outside(2, "64M")


def test_a_rule_that_states_no_range_labels_nothing():
    assert (
        extrapolated(
            {"shared_buffers": "8GB"}, family="postgresql", scale=50, memory_gb=0, server=None
        )
        is None
    )


@pytest.mark.django_db
def test_the_default_scale_fits_the_time_limit_above_the_pools_floor(client, organizer, settings):
    demo_load()
    entry = Submission.objects.get(entrant_name=DEMO_ENTRY)  # 246 s, a 128 MB pool
    client.force_login(organizer)
    url = f"/api/submissions/{entry.pk}/reruns/"
    mariadb = settings.RERUN_TARGETS["mariadb"]
    # 4 runs (the default) at 1/k take about 4 x 246 s x 0.96 / k: half of 600 s first fits at
    # k = 4.
    settings.RERUN_TARGETS = {**settings.RERUN_TARGETS, "mariadb": {**mariadb, "time_limit": 600}}
    started = client.post(url, {"target": "mariadb"}, content_type="application/json")
    assert started.status_code == 202, started.content
    assert started.json()["scale"] == 4
    # 60 s would need k = 32, past the 20 that keeps 128 MB at the 8 MB floor: said so.
    settings.RERUN_TARGETS = {**settings.RERUN_TARGETS, "mariadb": {**mariadb, "time_limit": 60}}
    refused = client.post(url, {"target": "mariadb"}, content_type="application/json")
    assert refused.status_code == 400
    said = str(refused.json())
    assert "No scale fits: 4 runs at 1/20" in said
    assert "keeps the entry's innodb_buffer_pool_size at or above its floor" in said
    assert "more than 50% of the target's time limit of 60 s" in said
    assert VerificationRun.objects.filter(submission=entry).count() == 1


@pytest.mark.django_db
def test_the_badges_tooltip_says_the_verifications_headline_first(client):
    from testing.reruns import TRUE_RERUNS, rejudge, stored_run

    demo_load()
    entry = Submission.objects.get(entrant_name=DEMO_ENTRY)
    before = client.get(f"/entries/{entry.pk}/badge.svg").content.decode()
    assert "<title>iiBench" in before and "Reproduced at" not in before
    run = stored_run(entry, TRUE_RERUNS, "not_reproduced", "Old.")
    rejudge()  # judged as a worker judges it: the demo claim's true reruns reproduce it
    run.refresh_from_db()
    assert run.verdict == "reproduced", run.message
    title = client.get(f"/entries/{entry.pk}/badge.svg").content.decode()
    title = html.unescape(title.split("<title>", 1)[1].split("</title>", 1)[0])
    headline = run.result["headline"]
    assert headline.startswith("Reproduced at 1/10 on mariadb: ")
    assert f"rows/s · not eligible · verified. {headline}" in title


@pytest.mark.django_db
def test_a_stored_verification_at_1_20_is_judged_extrapolated_never_reproduced(client, organizer):
    from testing.reruns import TRUE_RERUNS, rejudge, stored_run

    demo_load()
    entry = Submission.objects.get(entrant_name=DEMO_ENTRY)
    run = stored_run(entry, TRUE_RERUNS, "not_reproduced", "Old.")
    VerificationRun.objects.filter(pk=run.pk).update(scale=20)
    rejudge()  # the worker's own path: the track's judge, then the measured range
    run.refresh_from_db()
    assert run.verdict in ("shape_only", "not_reproduced", "inconclusive"), run.message
    assert run.result["headline"].startswith(f"{run.get_verdict_display()} (extrapolated) at 1/20")
    assert "outside it here: the scale 1/20 (checked up to 1/15)" in run.message
    client.force_login(organizer)
    said = client.get(f"/api/reruns/{run.pk}/").json()
    assert said["extrapolated"] == run.result["extrapolated"]
    assert said["extrapolated"].startswith("Extrapolated: the scaling rule was measured on")
    entry.refresh_from_db()
    assert not entry.verified
