import hashlib
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from submissions.entries import refusals, services
from submissions.models import SampleSeries, Submission
from testing.entries import upload
from testing.logs import gzipped, python_log

pytestmark = pytest.mark.django_db


def stored_files(settings) -> list[Path]:
    return [path for path in Path(settings.MEDIA_ROOT).rglob("*") if path.is_file()]


def test_it_stores_the_log_as_uploaded_with_its_sha256(contest, entrant, declared, settings):
    data = python_log()
    entry = services.entry_create(
        contest=contest, owner=entrant, declared=declared, log_file=upload(data)
    )
    assert entry.log.read() == data
    assert entry.log_sha256 == hashlib.sha256(data).hexdigest()
    assert entry.log_size == len(data)


def test_it_computes_figures_and_verdicts_on_create(contest, entrant, declared):
    entry = services.entry_create(
        contest=contest, owner=entrant, declared=declared, log_file=upload()
    )
    assert entry.rows == 5_000_000
    assert entry.eligible is True
    assert entry.average_rate == pytest.approx(entry.rows / entry.elapsed_seconds)
    assert {v["rule"] for v in entry.verdicts} >= {"target_rows", "deadline", "sockets"}
    assert SampleSeries.objects.get(submission=entry).count == 5


def test_it_keeps_a_gzipped_log_as_sent(contest, entrant, declared):
    data = gzipped(python_log())
    entry = services.entry_create(
        contest=contest, owner=entrant, declared=declared, log_file=upload(data, "run.log.gz")
    )
    assert entry.log.name.endswith(".gz")
    assert entry.log.read() == data
    assert entry.rows == 5_000_000


def test_it_refuses_the_same_file_twice_in_a_contest_naming_the_entry(contest, entrant, declared):
    first = services.entry_create(
        contest=contest, owner=entrant, declared=declared, log_file=upload()
    )
    with pytest.raises(refusals.DuplicateLog) as refused:
        services.entry_create(contest=contest, owner=entrant, declared=declared, log_file=upload())
    assert refused.value.existing == first
    assert f"entry #{first.pk}" in refused.value.message


def test_it_stores_nothing_when_the_log_is_refused(contest, entrant, declared, settings):
    with pytest.raises(refusals.SubmissionRefused) as refused:
        services.entry_create(
            contest=contest, owner=entrant, declared=declared, log_file=upload(b"hello\nworld\n")
        )
    assert refused.value.field == "log"
    assert "line 1" in refused.value.message
    assert Submission.objects.count() == 0
    assert stored_files(settings) == []


@pytest.mark.postgresql  # SQLite stores a value longer than its column
def test_it_removes_the_stored_file_when_the_database_write_fails(
    contest, entrant, declared, settings
):
    declared["storage_engine"] = "x" * 101  # longer than the column: the INSERT fails
    with pytest.raises(Exception):  # noqa: B017 - any database error
        services.entry_create(contest=contest, owner=entrant, declared=declared, log_file=upload())
    assert Submission.objects.count() == 0
    assert stored_files(settings) == []


def test_it_refuses_entries_after_the_deadline(contest, entrant, declared):
    contest.deadline = timezone.now() - timedelta(minutes=1)
    contest.save()
    with pytest.raises(refusals.ContestClosed):
        services.entry_create(contest=contest, owner=entrant, declared=declared, log_file=upload())


def test_an_edit_is_judged_again(contest, entrant, declared):
    entry = services.entry_create(
        contest=contest, owner=entrant, declared=declared, log_file=upload()
    )
    services.entry_update(submission=entry, declared={"memory_gb": 64})
    entry.refresh_from_db()
    assert entry.eligible is False
    assert "64 GB" in entry.ineligible_reason


def test_a_recheck_applies_changed_rules_to_every_entry(contest, entrant, declared):
    entry = services.entry_create(
        contest=contest, owner=entrant, declared=declared, log_file=upload()
    )
    assert entry.eligible
    contest.max_cores = 4
    contest.save()
    assert services.contest_recheck(contest=contest).checked == 1
    entry.refresh_from_db()
    assert entry.eligible is False
    assert next(v for v in entry.verdicts if v["rule"] == "cores")["status"] == "fail"


def test_display_name_drops_directories_and_control_characters():
    assert services.display_name("../../etc/passwd") == "passwd"
    assert services.display_name("C:\\logs\\run\x00.log") == "run.log"
    assert services.display_name("") == "log"


def test_a_recheck_marks_an_entry_whose_log_no_longer_passes_and_goes_on(
    contest, entrant, declared
):
    from django.core.files.base import ContentFile

    good = services.entry_create(
        contest=contest, owner=entrant, declared=declared, log_file=upload()
    )
    broken = services.entry_create(
        contest=contest,
        owner=entrant,
        declared=declared,
        log_file=upload(python_log(rows=4_000_000)),
    )
    # As if a stricter parser had come since: the stored file no longer reads.
    broken.log.storage.delete(broken.log.name)
    broken.log.storage.save(broken.log.name, ContentFile(b"not a log any more\n"))
    outcome = services.contest_recheck(contest=contest)
    assert (outcome.checked, outcome.unreadable) == (2, 1)
    broken.refresh_from_db()
    good.refresh_from_db()
    assert broken.eligible is False
    assert broken.rank is None
    assert broken.ineligible_reason.startswith("The stored log no longer passes the checks: line 1")
    assert broken.verdicts[0]["rule"] == "log_readable"
    assert good.eligible is True
    assert good.rank == 1
