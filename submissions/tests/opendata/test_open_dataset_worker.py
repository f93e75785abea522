"""The open dataset rebuilt by a real Celery worker over Redis: an entry arrives after a build,
the sweep the beat would send runs on the worker, and the download then holds the entry; the
page and the API state that build."""

import time

import pyarrow.parquet as pq
import pytest
from django.conf import settings

from submissions.models import OpenDataset
from submissions.opendata import build
from submissions.opendata.state import CURRENT, DUE, open_dataset_refresh
from submissions.tasks import open_dataset_refresh as open_dataset_refresh_task
from testing.factories import ContestFactory, SampleSeriesFactory, SubmissionFactory

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def iibench_binary() -> str:
    return str(settings.IIBENCH_BINARY)


def wait_for_build_other_than(build_name: str, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        manifest = OpenDataset.objects.get().manifest
        if manifest.get("build") != build_name:
            return manifest
        time.sleep(0.2)
    pytest.fail(f"the worker never replaced build {build_name}")


def test_an_entry_that_arrives_after_a_build_is_in_the_worker_s_next_build(client, request):
    running = request.getfixturevalue("worker")(
        "redis", MEDIA_ROOT=settings.MEDIA_ROOT, OPEN_DATA_MIN_INTERVAL_SECONDS="0"
    )
    contest = ContestFactory()
    SampleSeriesFactory(submission=SubmissionFactory(contest=contest), count=10)
    assert open_dataset_refresh() == "built"
    first = OpenDataset.objects.get().manifest
    newcomer = SubmissionFactory(contest=contest, entrant_name="Newcomer")
    SampleSeriesFactory(submission=newcomer, count=3)
    assert client.get("/api/dataset/").json()["state"] == DUE
    open_dataset_refresh_task.delay()
    manifest = wait_for_build_other_than(first["build"])
    folder = build.build_folder(manifest["build"])
    files = {item["table"]: [] for item in manifest["files"]}
    for item in manifest["files"]:  # one part or two, as the entries' ids fall
        files[item["table"]].append(folder / item["name"])
    entries = pq.read_table(files["entries.parquet"]).to_pylist()
    assert newcomer.pk in {row["id"] for row in entries}, running.log[-2000:]
    series = pq.read_table(files["series.parquet"])
    assert series.num_rows == 13
    api = client.get("/api/dataset/").json()
    assert api["state"] == CURRENT and api["built_at"] == manifest["built_at"]
    assert f'datetime="{manifest["built_at"]}"' in client.get("/open-data/").content.decode()
    newest = files["entries.parquet"][-1]
    download = client.get(f"/open-data/{newest.name}")
    assert b"".join(download.streaming_content) == newest.read_bytes()
    # The build it replaced is kept for downloads that began before the switch; none older.
    assert sorted(path.name for path in build.dataset_root().iterdir()) == sorted(
        [first["build"], manifest["build"]]
    )
