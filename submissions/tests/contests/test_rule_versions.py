"""Rule versions: an organizer changes a contest's rules and no page ever states a rule of one
version beside a verdict made under another. Seen: the memory cap moved from 16 to 32 GB in the
admin, and entry pages said "at most 32 GB ... FAIL: over the limit of 16"."""

from datetime import timedelta

import pytest
from django.utils import timezone

from submissions.contests.rule_changes import rule_changes
from submissions.entries import rechecks, services
from submissions.models import Recheck, RecheckStatus, RuleVersion
from testing.entries import upload
from testing.factories import ContestFactory, StaffFactory
from testing.rule_versions import admin_change_memory_cap, verdict_row


@pytest.fixture
def organizer():
    return StaffFactory(is_superuser=True)


pytestmark = pytest.mark.django_db


@pytest.fixture
def big_machine(contest, entrant, declared):
    """A 24 GB entry in a contest whose cap is 16 GB: not eligible."""
    return services.entry_create(
        contest=contest, owner=entrant, declared={**declared, "memory_gb": 24}, log_file=upload()
    )


def test_a_new_contest_has_rules_v1(contest):
    version = RuleVersion.objects.get(contest=contest)
    assert version.number == 1
    assert version.rules["max_memory_gb"] == 16


def test_the_change_reads_as_the_organizer_would_say_it():
    old = {"max_memory_gb": 16.0, "max_drives": 8, "track_rules": {"delete_after": 250_000_000}}
    new = {"max_memory_gb": 32.0, "max_drives": None, "track_rules": {"delete_after": 300_000_000}}
    assert rule_changes(old, new) == [
        "memory cap 16 -> 32 GB",
        "drive cap 8 -> no limit",
        "delete_after 250,000,000 -> 300,000,000",
    ]


def test_changing_the_memory_cap_in_the_admin_makes_a_version_and_queues_a_recheck(
    client, organizer, contest, big_machine
):
    response = admin_change_memory_cap(client, organizer, contest, 32)
    version = RuleVersion.objects.filter(contest=contest).order_by("-number").first()
    assert version.number == 2
    assert version.changes == ["memory cap 16 -> 32 GB"]
    assert version.created_by == organizer
    recheck = Recheck.objects.get(rule_version=version)
    assert recheck.status == RecheckStatus.QUEUED and recheck.total == 1
    assert "Rules v2: memory cap 16 -&gt; 32 GB" in response.content.decode()


def test_until_the_recheck_runs_the_entry_page_states_the_rules_of_its_verdicts(
    client, organizer, contest, big_machine
):
    admin_change_memory_cap(client, organizer, contest, 32)
    client.logout()
    page = client.get(big_machine.get_absolute_url()).content.decode()
    row = verdict_row(page, "GB of memory")
    # The verdict was made under v1 (16 GB): its sentence is v1's, never the new 32.
    assert "at most 16 GB of memory" in row and "over the limit of 16" in row
    assert "32" not in row
    assert "checked under rules v1" in page


def test_after_the_recheck_the_entry_passes_under_v2_and_says_so(
    client, organizer, contest, big_machine
):
    admin_change_memory_cap(client, organizer, contest, 32)
    recheck = Recheck.objects.get(contest=contest, status=RecheckStatus.QUEUED)
    assert rechecks.recheck_claim(recheck_id=recheck.pk)
    assert not rechecks.recheck_claim(recheck_id=recheck.pk)  # delivered twice: runs once
    done = rechecks.recheck_execute(recheck_id=recheck.pk)
    assert (done.status, done.checked, done.total) == (RecheckStatus.DONE, 1, 1)
    client.logout()
    page = client.get(big_machine.get_absolute_url()).content.decode()
    row = verdict_row(page, "GB of memory")
    assert "at most 32 GB of memory" in row and "within the limit of 32" in row
    today = timezone.localtime().strftime("%-d %b %Y")
    assert f"checked under rules v2 (changed {today}: memory cap 16 -&gt; 32 GB)" in page
    body = client.get(f"/api/submissions/{big_machine.pk}/").json()
    assert body["rules_version"]["number"] == 2
    assert body["rules_version"]["changes"] == ["memory cap 16 -> 32 GB"]
    assert body["eligible"] is True
    contest_api = client.get("/api/contests/").json()
    listed = next(item for item in contest_api["results"] if item["slug"] == contest.slug)
    assert listed["rules_version"]["number"] == 2


def test_the_organizer_sees_the_recheck_progress_on_the_contest_page(
    client, organizer, contest, big_machine
):
    admin_change_memory_cap(client, organizer, contest, 32)
    page = client.get(contest.get_absolute_url()).content.decode()
    assert (
        "Re-checking the entries under rules v2 (memory cap 16 -&gt; 32 GB): 0 of 1 entries" in page
    )
    client.logout()
    assert "Re-checking" not in client.get(contest.get_absolute_url()).content.decode()


def test_a_recheck_overtaken_by_newer_rules_stops_and_the_newer_one_judges(contest, big_machine):
    contest.max_memory_gb = 20
    contest.save()
    first = Recheck.objects.get(contest=contest)
    contest.max_memory_gb = 32
    contest.save()
    second = Recheck.objects.exclude(pk=first.pk).get(contest=contest)
    rechecks.recheck_claim(recheck_id=first.pk)
    assert rechecks.recheck_execute(recheck_id=first.pk).status == RecheckStatus.SUPERSEDED
    rechecks.recheck_claim(recheck_id=second.pk)
    rechecks.recheck_execute(recheck_id=second.pk)
    big_machine.refresh_from_db()
    assert big_machine.rules_version.number == 3 and big_machine.eligible


def test_saving_a_contest_without_changing_a_rule_makes_no_version(contest, big_machine):
    contest.title = "Renamed"
    contest.save()
    assert RuleVersion.objects.filter(contest=contest).count() == 1
    assert not Recheck.objects.filter(contest=contest).exists()


def test_the_sweep_resends_a_lost_recheck_and_one_whose_worker_died(contest, big_machine, settings):
    settings.RECHECK_STALE_SECONDS = 60
    contest.max_memory_gb = 32
    contest.save()
    recheck = Recheck.objects.get(contest=contest)
    assert rechecks.rechecks_to_resend() == []  # just queued: its message may be on its way
    Recheck.objects.filter(pk=recheck.pk).update(queued_at=timezone.now() - timedelta(minutes=5))
    assert rechecks.rechecks_to_resend() == [recheck.pk]
    rechecks.recheck_claim(recheck_id=recheck.pk)
    Recheck.objects.filter(pk=recheck.pk).update(heartbeat_at=timezone.now() - timedelta(minutes=5))
    assert rechecks.rechecks_to_resend() == [recheck.pk]
    recheck.refresh_from_db()
    assert recheck.status == RecheckStatus.QUEUED


def test_a_track_rules_change_is_a_version_too():
    contest = ContestFactory(workload="fifo", track_rules={})
    contest.track_rules = {"delete_after": 300_000_000}
    contest.save()
    version = RuleVersion.objects.filter(contest=contest).order_by("-number").first()
    assert version.number == 2
    assert version.changes == ["delete_after 250,000,000 -> 300,000,000"]


def test_a_contest_without_caps_states_each_rule_on_its_own_line(client):
    # Seen: "Hardware: no limit in this contest." four times over.
    contest = ContestFactory(max_sockets=None, max_cores=None, max_memory_gb=None, max_drives=None)
    page = client.get(contest.get_absolute_url()).content.decode()
    rules = page[page.index('<details class="rules"') : page.index("</details>")]
    lines = [item.split("</code>")[1].split("</li>")[0].strip() for item in rules.split("<li>")[1:]]
    assert len(lines) == len(set(lines))
    assert "no limit in this contest" not in rules
    for line in ("any number of sockets", "any number of cores", "any amount of memory",
                 "any number of drives"):  # fmt: skip
        assert f"Hardware: {line}." in lines


def test_the_permanent_link_keeps_showing_the_verdict_of_its_rule_version(
    client, organizer, contest, big_machine
):
    under_v1 = f"/entries/{big_machine.pk}/rules/v1/"
    before = client.get(big_machine.get_absolute_url()).content.decode()
    admin_change_memory_cap(client, organizer, contest, 32)
    recheck = Recheck.objects.get(contest=contest, status=RecheckStatus.QUEUED)
    rechecks.recheck_claim(recheck_id=recheck.pk)
    rechecks.recheck_execute(recheck_id=recheck.pk)
    client.logout()

    old = client.get(under_v1).content.decode()
    new = client.get(f"/entries/{big_machine.pk}/rules/v2/").content.decode()

    assert f'href="{under_v1}"' in before
    row = verdict_row(old, "GB of memory")
    assert "at most 16 GB of memory" in row and "over the limit of 16" in row
    assert "The contest's rules have changed since" in old
    assert "within the limit of 32" in verdict_row(new, "GB of memory")
    assert "These are the entry's current verdicts" in new
    assert client.get(f"/entries/{big_machine.pk}/rules/v3/").status_code == 404
