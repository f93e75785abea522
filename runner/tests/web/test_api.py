"""What the rerun API and the entry page's rerun panel show of a rerun of several steps."""

import pytest
from django.urls import reverse
from django.utils import timezone

from runner.models import RerunSample, RerunStatus, VerificationRun
from testing.reruns import track_entry

pytestmark = pytest.mark.django_db

CONTRACT = {
    "id", "submission", "target", "status", "rows_done", "rows_target", "rate", "started_at",
    "finished_at", "verdict", "ratio", "message", "log_url",
}  # fmt: skip


def key_type_run(entry, **fields) -> VerificationRun:
    run = VerificationRun.objects.create(
        submission=entry, target="mariadb", rows_target=2_000, status=RerunStatus.RUNNING,
        started_at=timezone.now(), step="uuid-char", rows_done=1_000,
        message="Step 2 of 3: CHAR(36) random UUID key.", **fields,
    )  # fmt: skip
    for step in ("autoinc", "uuid-char"):
        for rows in (1_000, 2_000) if step == "autoinc" else (1_000,):
            RerunSample.objects.create(
                run=run, step=step, rows=rows, seconds=rows / 1e4, interval_rate=1e4,
                cumulative_rate=1e4,
            )  # fmt: skip
    return run


def test_the_rerun_json_keeps_its_contract_and_adds_the_step_and_the_result(client, organizer):
    run = key_type_run(track_entry("pk_types", {}))
    client.force_login(organizer)
    body = client.get(reverse("api_rerun", args=[run.pk])).json()
    assert set(body) >= CONTRACT
    assert (body["step"], body["result"]) == ("uuid-char", {})


def test_the_samples_of_every_step_are_read_after_the_last_one_seen(client, organizer):
    run = key_type_run(track_entry("pk_types", {}))
    client.force_login(organizer)
    url = reverse("api_rerun_samples", args=[run.pk])
    samples = client.get(url).json()
    assert [(s["step"], s["rows"]) for s in samples] == [
        ("autoinc", 1_000), ("autoinc", 2_000), ("uuid-char", 1_000),
    ]  # fmt: skip
    # The second step's first report has fewer rows than the first step's last one: a page
    # polling by rows would miss it, by id it does not.
    newer = client.get(url, {"after_id": samples[1]["id"]}).json()
    assert [(s["step"], s["rows"]) for s in newer] == [("uuid-char", 1_000)]
    assert client.get(url, {"after_id": "x"}).status_code == 400


def test_the_entry_page_shows_the_step_while_running_and_the_result_once_done(client, organizer):
    entry = track_entry("crash_recovery", {"insert_rate": 2_000.0, "recovery_seconds": 13.0})
    running = key_type_run(entry)
    done = VerificationRun.objects.create(
        submission=entry, target="recovery-mariadb", rows_target=4_000, rows_done=4_000,
        status=RerunStatus.SUCCEEDED, step="recovery", verdict="reproduced", ratio=9.5,
        finished_at=timezone.now(),
        result={"recovery_seconds": 1.37, "rows_found": 4_000,
                "summary": "recovered in 1.37 s, 4,000 rows found"},
    )  # fmt: skip
    client.force_login(organizer)
    page = client.get(entry.get_absolute_url()).content.decode()
    running_card = page.split(f'id="rerun-{running.pk}"')[1].split("</article>")[0]
    assert '<p class="meta step-line">step <code data-field="step">uuid-char</code>' in running_card
    done_card = page.split(f'id="rerun-{done.pk}"')[1].split("</article>")[0]
    assert "recovered in 1.37 s, 4,000 rows found" in done_card
    assert 'step-line" hidden' in done_card
