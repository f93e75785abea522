"""factory_boy factories for the registry. Submissions made here skip the parser: use
`services.submission_create` (with `logs.python_log`) when a test is about checking a log."""

import hashlib
from datetime import timedelta

import factory
import numpy as np
from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.utils import timezone
from factory.django import DjangoModelFactory

from submissions.contests.rule_versions import rule_version_current
from submissions.measures.series import pack_columns, plot_preview
from submissions.models import Contest, DriveKind, ReferenceResult, SampleSeries, Submission
from submissions.setup.engines import normalised_engine

PASSWORD = "a-long-test-password-42"


class UserFactory(DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"entrant{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.org")
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def save_password(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class StaffFactory(UserFactory):
    username = factory.Sequence(lambda n: f"organizer{n}")
    is_staff = True


class ContestFactory(DjangoModelFactory):
    """An open contest with the 2008 rules whose results are public."""

    class Meta:
        model = Contest

    slug = factory.Sequence(lambda n: f"contest-{n}")
    title = factory.Sequence(lambda n: f"iiBench contest {n}")
    results_published_at = factory.LazyFunction(lambda: timezone.now() - timedelta(days=1))


class SubmissionFactory(DjangoModelFactory):
    """An entry as the registry stores it after checking: a finished 1B-row run."""

    class Meta:
        model = Submission

    class Params:
        # `verified=True`: a verification reproduced it (the one stored outcome).
        verified = factory.Trait(verification="reproduced")

    contest = factory.SubFactory(ContestFactory)
    owner = factory.SubFactory(UserFactory)
    entrant_name = factory.Sequence(lambda n: f"Entrant {n}")
    email = factory.Sequence(lambda n: f"entrant{n}@example.org")
    publish = True
    cpu_model = "Xeon X5460"
    sockets = 2
    cores = 8
    cpu_ghz = 3.16
    memory_gb = 16
    drives = 8
    drive_kind = DriveKind.HDD
    raid_level = "RAID 5"
    direct_attached = True
    os = "CentOS 5.1"
    server_family = "mysql"
    server_version = "5.1.25-rc"
    storage_engine = "InnoDB"
    engine = factory.LazyAttribute(
        lambda entry: normalised_engine(entry.storage_engine, entry.server_family)
    )
    rules_version = factory.LazyAttribute(lambda entry: rule_version_current(entry.contest))
    solution_description = "Stock settings."
    log_name = "iibench.log"
    log_sha256 = factory.Sequence(lambda n: hashlib.sha256(f"log {n}".encode()).hexdigest())
    log_size = 16
    log = factory.LazyAttribute(lambda entry: ContentFile(b"placeholder log\n", name="iibench.log"))
    log_format = "python-iibench-2009-04"
    rows = 1_000_000_000
    elapsed_seconds = 19.6 * 86400
    average_rate = factory.LazyAttribute(lambda entry: entry.rows / entry.elapsed_seconds)
    terminal_rate = 404.0
    terminal_window_rows = 10_000_000
    terminal_window_start_row = 990_000_000
    seconds_to_target = factory.LazyAttribute(lambda entry: entry.elapsed_seconds)
    estimated = False
    eligible = True
    verdicts = factory.LazyFunction(list)
    checked_at = factory.LazyFunction(timezone.now)


class ReferenceResultFactory(DjangoModelFactory):
    """A published result, like the seeds' InnoDB run of the 2008 contest."""

    class Meta:
        model = ReferenceResult

    contest = factory.SubFactory(ContestFactory)
    label = factory.Sequence(lambda n: f"Tokutek InnoDB run {n}")
    storage_engine = "InnoDB"
    hardware = "Sun Fire x4150, 2x Xeon X5460, 16 GB, 8x SAS, RAID 5"
    drive_kind = DriveKind.HDD
    rows = 1_000_000_000
    elapsed_seconds = 19.6 * 86400
    terminal_rate = 404.0
    average_rate = factory.LazyAttribute(
        lambda ref: ref.rows / ref.elapsed_seconds if ref.elapsed_seconds else None
    )
    size_gib = 166.0
    source = "Tokutek iiBench contest deck (seeds/000)"


def rate_columns(samples: int, every: int = 1_000_000, deletes: bool = False) -> dict:
    """A run's columns as the parser stores them: the rate falls as the table grows."""
    rows = np.arange(1, samples + 1, dtype=np.int64) * every
    interval_rate = 100_000.0 / (1.0 + np.arange(samples) / 50.0)
    seconds = np.cumsum(every / interval_rate)
    columns = {
        "rows": rows,
        "seconds": seconds,
        "interval_rate": interval_rate,
        "cumulative_rate": rows / seconds,
        "line": np.arange(2, samples + 2, dtype=np.int64),
    }
    if deletes:
        columns["deleted"] = np.maximum(rows - rows[len(rows) // 2], 0)
        columns["interval_delete_rate"] = np.where(columns["deleted"] > 0, interval_rate, 0.0)
    return columns


class SampleSeriesFactory(DjangoModelFactory):
    """The stored series of an entry: the packed columns and the plot preview built from them."""

    class Meta:
        model = SampleSeries

    class Params:
        columns_data = factory.LazyAttribute(lambda series: rate_columns(series.count))

    submission = factory.SubFactory(SubmissionFactory)
    count = 100
    columns = factory.LazyAttribute(lambda series: pack_columns(series.columns_data))
    preview = factory.LazyAttribute(lambda series: plot_preview(series.columns_data))
