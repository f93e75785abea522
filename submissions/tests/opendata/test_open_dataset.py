"""The open dataset (issue 31): built from the real PostgreSQL's entries, read back with
pyarrow; an embargoed contest's entries never in it; a change makes it stale and the next
build (debounced) has it; the files sent whole or by Range with their checksum as ETag; the
page and the API show the same build."""

from __future__ import annotations

import hashlib
import io
from datetime import timedelta
from pathlib import Path

import numpy as np
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest
from django.utils import timezone

from submissions.contests.ranks import ranks_of
from submissions.measures.series import unpack_columns
from submissions.models import OpenDataset
from submissions.opendata import build
from submissions.opendata.state import (
    BUILDING,
    CURRENT,
    DUE,
    NONE,
    build_claim,
    open_dataset_refresh,
    open_dataset_status,
)
from testing.factories import ContestFactory, SampleSeriesFactory, SubmissionFactory, rate_columns

pytestmark = pytest.mark.django_db


@pytest.fixture
def registry(db, settings):
    """Two public contests and an embargoed one: entries with series and verdicts, an
    anonymous one, a demo and a synthetic one, and a draft under embargo. The dataset in one
    part whatever ids the entries get (test_open_dataset_parts.py cuts it in several)."""
    settings.OPEN_DATA_PART_IDS = 10**12
    public = ContestFactory(slug="public-open")
    other = ContestFactory(slug="public-fifo")
    embargoed = ContestFactory(
        slug="embargoed", results_published_at=timezone.now() + timedelta(days=3)
    )
    named = SubmissionFactory(
        contest=public,
        entrant_name="Ada",
        email="ada@example.org",
        verdicts=[
            {"rule": "rows_per_commit", "status": "pass", "message": "1,000 rows per commit", "line": 3, "value": "1000", "limit": "1000"},
            {"rule": "memory", "status": "fail", "message": "24 GB is over the 16 GB cap", "line": None, "value": "24", "limit": "16"},
        ],
        eligible=False,
        ineligible_reason="24 GB is over the 16 GB cap",
    )  # fmt: skip
    SampleSeriesFactory(submission=named, count=120)
    anonymous = SubmissionFactory(
        contest=public, entrant_name="Secret Sam", publish=False, terminal_rate=900.0
    )
    demo = SubmissionFactory(contest=other, demo="demo", storage_engine="=HYPERLINK(1)")
    SampleSeriesFactory(submission=demo, count=7, columns_data=rate_columns(7, deletes=True))
    synthetic = SubmissionFactory(contest=other, demo="synthetic")
    draft = SubmissionFactory(
        contest=embargoed, entrant_name="Drafty", cpu_model="Embargoed CPU 9000"
    )
    SampleSeriesFactory(submission=draft, count=5)
    return {
        "named": named,
        "anonymous": anonymous,
        "demo": demo,
        "synthetic": synthetic,
        "draft": draft,
    }


def served(name: str) -> list[str]:
    """The files of table `name` in the build served: its parts' (the registry is cut into
    parts by entry id; pyarrow reads a list of parts as one table)."""
    manifest = OpenDataset.objects.get().manifest
    folder = build.build_folder(manifest["build"])
    return [str(folder / item["name"]) for item in manifest["files"] if item["table"] == name]


def served_bytes(name: str) -> bytes:
    return b"".join(Path(path).read_bytes() for path in served(name))


def test_a_build_holds_every_published_entry_and_nothing_under_embargo(registry):
    assert open_dataset_refresh() == "built"
    entries = pq.read_table(served("entries.parquet")).to_pylist()
    by_id = {row["id"]: row for row in entries}
    public = {registry[name].pk for name in ("named", "anonymous", "demo", "synthetic")}
    assert set(by_id) == public
    draft = registry["draft"]
    for name in build.SCHEMAS:  # the parts' tables and the contests' ranks
        raw = served_bytes(name)
        assert (
            b"Drafty" not in raw and b"Embargoed CPU 9000" not in raw and b"Secret Sam" not in raw
        )
        assert b"@example.org" not in raw  # no e-mail, ever
    assert draft.pk not in set(
        pq.read_table(served("verdicts.parquet")).column("entry_id").to_pylist()
    )
    assert draft.pk not in set(
        pq.read_table(served("series.parquet")).column("entry_id").to_pylist()
    )

    named = by_id[registry["named"].pk]
    assert (named["entrant"], named["contest"], named["eligible"], named["verdicts_failed"]) == (
        "Ada",
        "public-open",
        False,
        1,
    )
    assert named["trust"] == "self-reported" and named["trust_means"].startswith("Self-reported:")
    assert named["page"] == f"/entries/{named['id']}/" and named["series_reports"] == 120
    assert by_id[registry["anonymous"].pk]["entrant"] == "Anonymous entrant"
    ranks = pq.read_table(served("ranks.parquet")).to_pylist()
    # The only eligible entry of its board is ranked first; the ranks of no draft are published.
    assert {(row["entry_id"], row["contest"]) for row in ranks if row["rank"] == 1} >= {
        (registry["anonymous"].pk, "public-open")
    }
    assert draft.pk not in {row["entry_id"] for row in ranks}
    assert {row["contest"] for row in ranks} <= {"public-open", "public-fifo"}
    for contest in {registry["anonymous"].contest, registry["demo"].contest}:
        assert {
            row["entry_id"]: row["rank"] for row in ranks if row["contest"] == contest.slug
        } == ranks_of(contest=contest)  # as the board ranks them
    assert {row["demo"] for row in entries} == {"", "demo", "synthetic"}
    assert by_id[registry["synthetic"].pk]["series_reports"] == 0
    assert by_id[registry["synthetic"].pk]["samples_url"] == ""


def test_verdicts_and_series_read_back_as_stored(registry):
    open_dataset_refresh()
    verdicts = pq.read_table(served("verdicts.parquet")).to_pylist()
    memory = next(row for row in verdicts if row["rule"] == "memory")
    assert memory == {
        "entry_id": registry["named"].pk, "contest": "public-open", "rules_version": 1,
        "rule": "memory", "status": "fail", "message": "24 GB is over the 16 GB cap",
        "line": None, "value": "24", "limit": "16",
    }  # fmt: skip
    series = pq.read_table(served("series.parquet"))
    for name, count in (("named", 120), ("demo", 7)):
        entry = registry[name]
        stored = unpack_columns(bytes(entry.series.columns))
        mine = series.filter(series.column("entry_id").to_numpy() == entry.pk)
        assert mine.num_rows == count
        for column in ("rows", "seconds", "interval_rate", "line"):
            assert np.array_equal(mine.column(column).to_numpy(), stored[column])
        # A column the log does not carry is null, never zero.
        assert mine.column("latency_p99_ms").null_count == count
    demo = series.filter(series.column("entry_id").to_numpy() == registry["demo"].pk)
    assert demo.column("deleted").null_count == 0


def test_the_csv_has_the_entries_and_quotes_what_a_spreadsheet_would_run(registry):
    open_dataset_refresh()
    table = pa_csv.read_csv(served("entries.csv")[0])
    parquet = pq.read_table(served("entries.parquet"))
    assert table.column("id").to_pylist() == parquet.column("id").to_pylist()
    engines = dict(
        zip(table.column("id").to_pylist(), table.column("storage_engine").to_pylist(), strict=True)
    )
    assert engines[registry["demo"].pk] == "'=HYPERLINK(1)"
    assert (
        parquet.to_pylist()[[row["id"] for row in parquet.to_pylist()].index(registry["demo"].pk)][
            "storage_engine"
        ]
        == "=HYPERLINK(1)"
    )


def test_the_manifest_states_each_file_s_size_checksum_and_rows(registry):
    open_dataset_refresh()
    manifest = OpenDataset.objects.get().manifest
    # One part, then each public contest's ranks.
    assert [item["table"] for item in manifest["files"]] == [
        *build.FILES,
        *["ranks.parquet", "ranks.csv"] * 2,
    ]
    folder = build.build_folder(manifest["build"])
    for item in manifest["files"]:
        data = (folder / item["name"]).read_bytes()
        assert (item["bytes"], item["sha256"]) == (len(data), hashlib.sha256(data).hexdigest())
    rows = {item["table"]: item["rows"] for item in manifest["files"] if item["part"] == 0}
    assert rows == {
        "entries.parquet": 4,
        "verdicts.parquet": 2,
        "series.parquet": 127,
        "entries.csv": 4,
    }
    ranked = {(item.get("contest"), item["table"]): item["rows"] for item in manifest["files"]}
    contest = registry["anonymous"].contest
    assert ranked[(contest.pk, "ranks.parquet")] == len(ranks_of(contest=contest))
    assert {contest["slug"] for contest in manifest["contests"]} == {"public-open", "public-fifo"}


def test_a_change_makes_it_stale_and_the_next_build_waits_for_the_debounce(registry, settings):
    settings.OPEN_DATA_MIN_INTERVAL_SECONDS = 300
    start = timezone.now()
    assert open_dataset_status(start).state == NONE  # never built
    assert open_dataset_refresh(now=start) == "built"
    assert open_dataset_status(start).state == CURRENT
    assert open_dataset_refresh(now=start + timedelta(seconds=1)) == "current"
    newcomer = SubmissionFactory(contest=registry["named"].contest, entrant_name="Newcomer")
    assert open_dataset_status(start + timedelta(seconds=2)).state == DUE
    assert open_dataset_refresh(now=start + timedelta(seconds=60)) == "waiting"
    assert newcomer.pk not in pq.read_table(served("entries.parquet")).column("id").to_pylist()
    assert open_dataset_refresh(now=start + timedelta(seconds=301)) == "built"
    assert newcomer.pk in pq.read_table(served("entries.parquet")).column("id").to_pylist()


def test_a_contest_published_later_joins_at_the_next_build(registry, settings):
    settings.OPEN_DATA_MIN_INTERVAL_SECONDS = 0
    open_dataset_refresh()
    later = timezone.now() + timedelta(days=4)
    assert open_dataset_status(later).state == DUE  # its results became public meanwhile
    assert open_dataset_refresh(now=later) == "built"
    assert registry["draft"].pk in pq.read_table(served("entries.parquet")).column("id").to_pylist()


# -- the page, the API and the downloads ------------------------------------------------------


def test_before_the_first_build_the_downloads_and_the_api_say_so(client, db):
    assert open_dataset_status().state == NONE
    response = client.get("/open-data/entries.csv")
    assert response.status_code == 404 and b"has not been built yet" in response.content
    api = client.get("/api/dataset/")
    assert api.status_code == 404 and "has not been built yet" in api.json()["detail"]
    assert client.get("/open-data/").status_code == 200


def test_while_the_first_build_runs_they_answer_503_with_retry_after(client, registry):
    OpenDataset.objects.update_or_create(pk=1, defaults={"building_since": timezone.now()})
    assert open_dataset_status().state == BUILDING
    for url in ("/open-data/entries.csv", "/open-data/series-000000.parquet", "/api/dataset/"):
        response = client.get(url)
        assert response.status_code == 503 and int(response["Retry-After"]) >= 5
        assert "being built for the first time" in response.content.decode()


def test_the_page_and_the_api_show_the_same_build(client, registry):
    open_dataset_refresh()
    manifest = client.get("/api/dataset/").json()
    page = client.get("/open-data/").content.decode()
    assert f'datetime="{manifest["built_at"]}"' in page
    assert manifest["registry_version"] in page and manifest["state"] == CURRENT
    title = registry["named"].contest.title
    assert f"{title} (2 entries)" in page and "Drafty" not in page
    for item in manifest["files"]:
        assert item["url"].endswith(f"/open-data/{item['name']}") and item["url"] in page
    assert client.get("/api/").json()["dataset"] == "http://testserver/api/dataset/"
    home = client.get("/").content.decode()
    assert 'href="/open-data/"' in home and 'href="/api/dataset/"' in home
    SubmissionFactory(contest=registry["named"].contest)
    assert client.get("/api/dataset/").json()["state"] == DUE
    assert "The registry changed since this build" in client.get("/open-data/").content.decode()


def _body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_a_download_is_whole_or_the_range_asked_for(client, registry):
    open_dataset_refresh()
    data = served_bytes("series.parquet")
    (part,) = served("series.parquet")
    url = "/open-data/" + part.rsplit("/", 1)[1]
    whole = client.get(url)
    assert whole.status_code == 200 and _body(whole) == data
    assert int(whole["Content-Length"]) == len(data) and whole["Accept-Ranges"] == "bytes"
    etag = whole["ETag"]
    part = client.get(url, headers={"Range": "bytes=100-1099"})
    assert part.status_code == 206 and _body(part) == data[100:1100]
    assert (
        part["Content-Range"] == f"bytes 100-1099/{len(data)}" and part["Content-Length"] == "1000"
    )
    tail = client.get(url, headers={"Range": "bytes=-16"})
    assert _body(tail) == data[-16:]
    rest = client.get(url, headers={"Range": f"bytes={len(data) - 5}-"})
    assert _body(rest) == data[-5:]
    past = client.get(url, headers={"Range": f"bytes={len(data)}-"})
    assert past.status_code == 416 and past["Content-Range"] == f"bytes */{len(data)}"
    stale = client.get(url, headers={"Range": "bytes=0-9", "If-Range": '"old"'})
    assert stale.status_code == 200 and _body(stale) == data
    assert client.get(url, headers={"If-None-Match": etag}).status_code == 304
    several = client.get(url, headers={"Range": "bytes=0-1,5-9"})
    assert several.status_code == 200 and _body(several) == data  # whole, as RFC 9110 allows
    missing = client.get("/open-data/passwd")
    assert missing.status_code == 404 and "has no file 'passwd'" in missing.content.decode()
    assert pq.read_table(io.BytesIO(data)).num_rows == 127


def test_a_contest_put_back_under_embargo_is_not_served_from_the_old_build(
    client, registry, settings
):
    settings.OPEN_DATA_MIN_INTERVAL_SECONDS = 0
    open_dataset_refresh()
    contest = registry["demo"].contest
    contest.results_published_at = timezone.now() + timedelta(days=1)
    contest.save()
    response = client.get("/open-data/entries.csv")
    assert response.status_code == 503 and "no longer public" in response.content.decode()
    assert client.get("/api/dataset/").status_code == 503
    open_dataset_refresh()
    assert client.get("/open-data/entries.csv").status_code == 200
    ids = pq.read_table(served("entries.parquet")).column("id").to_pylist()
    assert registry["demo"].pk not in ids and registry["named"].pk in ids


def test_two_sweeps_never_build_at_once_and_a_dead_build_is_taken_over(registry, settings):
    settings.OPEN_DATA_MIN_INTERVAL_SECONDS = 0
    settings.OPEN_DATA_BUILD_TIMEOUT_SECONDS = 600
    start = timezone.now()
    assert build_claim(start) is True
    assert build_claim(start + timedelta(seconds=1)) is False  # the first one is building
    assert open_dataset_refresh(now=start + timedelta(seconds=2)) == "waiting"
    assert open_dataset_status(start + timedelta(seconds=2)).state == BUILDING
    # Its worker died: past the timeout the next sweep builds.
    assert open_dataset_refresh(now=start + timedelta(seconds=601)) == "built"
    assert OpenDataset.objects.get().building_since is None


def test_a_failed_build_leaves_the_last_one_served_and_says_why(registry, settings, tmp_path):
    settings.OPEN_DATA_MIN_INTERVAL_SECONDS = 0
    settings.OPEN_DATA_DIR = str(tmp_path / "open-data")
    open_dataset_refresh()
    served_before = OpenDataset.objects.get().manifest["build"]
    SubmissionFactory(contest=registry["named"].contest)
    # The next build cannot write: its folder's parent is a file (a volume gone wrong).
    (tmp_path / "not-a-folder").write_text("")
    settings.OPEN_DATA_DIR = str(tmp_path / "not-a-folder" / "open-data")
    with pytest.raises(OSError):
        open_dataset_refresh()
    row = OpenDataset.objects.get()
    assert row.manifest["build"] == served_before and row.building_since is None
    assert "NotADirectoryError" in row.last_error or "FileExistsError" in row.last_error
    settings.OPEN_DATA_DIR = str(tmp_path / "open-data")
    assert [path.name for path in build.dataset_root().iterdir()] == [served_before]
