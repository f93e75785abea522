"""A part amended by deltas (issue 44): an edit, a deletion or an upload into a part already
written adds a delta holding that entry's rows, not the part again. A reader who follows
docs/api.md's rules (a part's files, then each delta in order: drop the rows of the ids it
replaces, add its rows) reads exactly the registry after any mix of uploads, edits, deletions,
names withdrawn, series replaced and moves between contests; so does the whole CSV; a withdrawn
name leaves every file served; a part's deltas stay few and a part is written whole again once
they grow; a build that fails while amending leaves the build served and the change log as
they were; and the build after an edit, a deletion or an upload makes the same queries, reads
the same rows and writes the same files at 12 and 60 entries in one part."""

from __future__ import annotations

import io
import random
from datetime import timedelta

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from submissions.models import Contest, OpenDataChange, OpenDataset, SampleSeries, Submission
from submissions.opendata import build, parts, tables
from submissions.opendata.state import open_dataset_refresh
from testing.factories import ContestFactory, SampleSeriesFactory, SubmissionFactory
from testing.reads import rows_read

pytestmark = pytest.mark.django_db

KEYS = {
    "entries.parquet": "id",
    "verdicts.parquet": "entry_id",
    "series.parquet": "entry_id",
    "entries.csv": "id",
}
SCHEMAS = {
    "entries.parquet": tables.ENTRY_SCHEMA,
    "verdicts.parquet": tables.VERDICT_SCHEMA,
    "series.parquet": tables.SERIES_SCHEMA,
    "entries.csv": tables.ENTRY_SCHEMA,
}


def later(seconds: int) -> timezone.datetime:
    return timezone.now() + timedelta(seconds=seconds)


def read_file(table: str, body: bytes) -> pa.Table:
    if table.endswith(".csv"):
        types = {field.name: field.type for field in SCHEMAS[table]}
        options = pa_csv.ConvertOptions(column_types=types, strings_can_be_null=False)
        return pa_csv.read_csv(io.BytesIO(body), convert_options=options)
    return pq.read_table(io.BytesIO(body))


def download(client, url: str) -> bytes:
    response = client.get(url)
    assert response.status_code == 200, url
    return b"".join(response.streaming_content)


def read_as_documented(manifest: dict, fetch) -> dict[str, pa.Table]:
    """The dataset as docs/api.md tells a reader to read it: for each part, its file of the
    table, then each of its deltas in order (drop the rows whose entry id the delta replaces,
    add the delta's rows); the parts one after another, sorted by entry id (a stable sort: an
    entry's reports and verdicts keep their order)."""
    read = {}
    for table, key in KEYS.items():
        pieces = []
        for part in manifest["parts"]:
            (base,) = [item for item in part["files"] if item["table"] == table]
            rows = read_file(table, fetch(base))
            for delta in part["deltas"]:
                replaced = pa.array(delta["replaces"], pa.int64())
                rows = rows.filter(pc.invert(pc.is_in(rows[key], value_set=replaced)))
                (added,) = [item for item in delta["files"] if item["table"] == table]
                rows = pa.concat_tables([rows, read_file(table, fetch(added))])
            pieces.append(rows)
        whole = pa.concat_tables(pieces) if pieces else SCHEMAS[table].empty_table()
        read[table] = whole.sort_by([(key, "ascending")])
    return read


def served_as_read(client) -> tuple[dict, dict[str, pa.Table]]:
    api = client.get("/api/dataset/").json()
    return api, read_as_documented(api, lambda item: download(client, item["url"]))


def fresh_build(seconds: int) -> dict[str, pa.Table]:
    """Every table as a build made from nothing reads it from the database now."""
    manifest, _ = build.build_dataset(built_at=later(seconds), served=None)
    folder = build.build_folder(manifest["build"])
    return read_as_documented(manifest, lambda item: (folder / item["name"]).read_bytes())


def assert_equals_the_registry(client, seconds: int) -> dict:
    """The dataset a reader reads equals the database: the published entries and their
    declared values, names, contests, verdicts and series; every table equals a build made
    from nothing; the whole CSV equals the parts' CSV as read."""
    api, read = served_as_read(client)
    public = Contest.objects.filter(results_published_at__lte=timezone.now())
    entries = Submission.objects.filter(contest__in=public).select_related("contest")
    expected = {
        entry.pk: (
            entry.contest.slug,
            entry.entrant_name if entry.publish else "Anonymous entrant",
            entry.cpu_model,
            entry.solution_description,
            len(entry.verdicts),
        )
        for entry in entries
    }
    rows = read["entries.parquet"].to_pylist()
    assert [row["id"] for row in rows] == sorted(expected)
    got = {
        row["id"]: (
            row["contest"],
            row["entrant"],
            row["cpu_model"],
            row["solution_description"],
            0,
        )
        for row in rows
    }
    verdicts = read["verdicts.parquet"].column("entry_id").to_pylist()
    for entry_id in got:
        got[entry_id] = (*got[entry_id][:4], verdicts.count(entry_id))
    assert got == expected
    series = read["series.parquet"].column("entry_id").to_pylist()
    stored = dict(
        SampleSeries.objects.filter(submission__in=entries).values_list("submission_id", "count")
    )
    assert {entry_id: series.count(entry_id) for entry_id in set(series)} == stored
    assert {row["id"]: row["series_reports"] for row in rows} == {
        entry_id: stored.get(entry_id, 0) for entry_id in expected
    }
    fresh = fresh_build(seconds)
    for table in KEYS:
        assert read[table].to_pylist() == fresh[table].to_pylist(), table
    whole = download(client, api["whole"][0]["url"])
    assert len(whole) == api["whole"][0]["bytes"] and api["whole"][0]["rows"] == len(expected)
    assert read_file("entries.csv", whole).to_pylist() == read["entries.csv"].to_pylist()
    counts = {contest["slug"]: contest["entries"] for contest in api["contests"]}
    assert counts == {
        contest.slug: sum(1 for slug, *_ in expected.values() if slug == contest.slug)
        for contest in public
    }
    return api


WIDE = 64  # ids per part: deltas are written until they replace an eighth of a part


@pytest.fixture
def wide(settings):
    settings.OPEN_DATA_PART_IDS = WIDE
    settings.OPEN_DATA_MIN_INTERVAL_SECONDS = 0
    public = ContestFactory(slug="wide-a")
    other = ContestFactory(slug="wide-b")
    hidden = ContestFactory(slug="wide-hidden", results_published_at=later(86400 * 3))
    rng = random.Random(44)
    for number in range(150):
        entry = SubmissionFactory(
            contest=public if number % 3 else other,
            publish=rng.random() < 0.7,
            eligible=rng.random() < 0.5,
            seconds_to_target=100.0 + number,
            cpu_model=f"CPU {number}",
            verdicts=[{"rule": "memory", "status": "pass", "message": "ok"}] * rng.randint(0, 2),
        )
        if number % 4 == 0:
            SampleSeriesFactory(submission=entry, count=rng.randint(2, 6))
    return public, other, hidden, rng


def change_at_random(public, other, hidden, rng: random.Random) -> str:
    ids = list(Submission.objects.values_list("id", flat=True))
    entry = Submission.objects.get(pk=rng.choice(ids))
    kind = rng.choice(
        ["upload", "edit", "edit", "edit", "delete", "name", "series", "move", "hide", "bulk"]
    )
    if kind == "upload":
        made = SubmissionFactory(contest=rng.choice([public, other]), publish=rng.random() < 0.5)
        if rng.random() < 0.5:
            SampleSeriesFactory(submission=made, count=rng.randint(2, 6))
    elif kind == "edit":
        entry.solution_description = f'Edited {rng.random()}, with "quotes",\nand a new line.'
        entry.cpu_model = "=Edited CPU" if rng.random() < 0.3 else f"CPU {rng.random()}"
        entry.save()
    elif kind == "delete":
        entry.delete()
    elif kind == "name":
        entry.publish = not entry.publish
        entry.save()
    elif kind == "series":
        SampleSeries.objects.filter(submission=entry).delete()
        SampleSeriesFactory(submission=entry, count=rng.randint(2, 6))
    elif kind == "move":
        entry.contest = public if entry.contest_id == other.pk else other
        entry.save()
    elif kind == "hide":
        entry.contest = hidden
        entry.save()
    else:  # a bulk UPDATE of a few entries, no save()
        chosen = rng.sample(ids, 3)
        Submission.objects.filter(pk__in=chosen).update(os=f"Bulk {rng.random()}")
        for contest_id in {public.pk, other.pk, hidden.pk}:
            Contest.objects.filter(pk=contest_id).update(board_version=rng.randint(10, 10**9))
    return kind


def test_after_random_changes_a_reader_of_the_deltas_reads_exactly_the_registry(client, wide):
    public, other, hidden, rng = wide
    assert open_dataset_refresh() == "built"
    assert_equals_the_registry(client, 1)
    amended = rebuilt = 0
    for round_number in range(1, 31):
        kinds = [change_at_random(public, other, hidden, rng) for _ in range(rng.randint(1, 3))]
        # Every change moves some contest's board version on: the dataset is due.
        Contest.objects.filter(pk=public.pk).update(board_version=10**9 + round_number)
        assert open_dataset_refresh(now=later(10 * round_number)) == "built", kinds
        api = assert_equals_the_registry(client, 10 * round_number + 5)
        amended += len(api["parts_amended"])
        rebuilt += len(api["parts_rebuilt"])
        for part in api["parts"]:
            assert len(part["deltas"]) <= 4, part  # few: merged as a binary counter
            replaced = {entry for delta in part["deltas"] for entry in delta["replaces"]}
            assert len(replaced) * 8 <= part["files"][0]["rows"]  # else written whole again
    assert amended >= 10 and rebuilt >= 1, (amended, rebuilt)


def test_an_edit_adds_a_delta_of_its_rows_and_links_the_part(client, wide):
    public, *_ = wide
    open_dataset_refresh()
    first = OpenDataset.objects.get().manifest
    edited = Submission.objects.filter(contest=public, publish=True).order_by("id")[5]
    SampleSeries.objects.filter(submission=edited).delete()
    SampleSeriesFactory(submission=edited, count=3)
    open_dataset_refresh(now=later(1))
    before = OpenDataset.objects.get().manifest
    edited.solution_description = "Only this entry changed."
    edited.save()
    assert open_dataset_refresh(now=later(2)) == "built"
    manifest = OpenDataset.objects.get().manifest
    mine = parts.part_of(edited.pk, WIDE)
    assert (manifest["parts_rebuilt"], manifest["parts_amended"]) == ([], [mine])
    part = next(p for p in manifest["parts"] if p["part"] == mine)
    delta = part["deltas"][-1]
    assert delta["replaces"] == [edited.pk] and delta["entries"] == 1
    assert [item["name"] for item in delta["files"]] == [
        parts.file_name(table, mine, delta["delta"]) for table in build.FILES
    ]
    series = next(item for item in delta["files"] if item["table"] == "series.parquet")
    assert series["rows"] == SampleSeries.objects.get(submission=edited).count
    # Every file of the build before is still served, the very same bytes.
    old = {item["name"]: item["sha256"] for item in before["files"]}
    new = {item["name"]: item["sha256"] for item in manifest["files"]}
    assert set(new) - set(old) == {item["name"] for item in delta["files"]}
    assert all(new[name] == sha for name, sha in old.items() if name in new)
    assert first["parts_amended"] == []
    page = client.get("/open-data/").content.decode()
    assert all(item["name"] in page for item in delta["files"])
    assert client.get(f"/open-data/{parts.index_name(mine)}").status_code == 404


def all_raw_rows(manifest: dict) -> list[dict]:
    """Every row of every entries file served, its deltas' replaced rows too."""
    folder = build.build_folder(manifest["build"])
    return [
        row
        for item in manifest["files"]
        if item["table"] == "entries.parquet"
        for row in pq.read_table(folder / item["name"]).to_pylist()
    ]


def test_a_withdrawn_name_leaves_every_file_and_an_anonymous_deletion_is_a_delta(client, wide):
    public, *_ = wide
    open_dataset_refresh()
    named = Submission.objects.filter(contest=public, publish=True).order_by("id")[3]
    anonymous = Submission.objects.filter(contest=public, publish=False).order_by("-id")[0]
    named.publish = False
    named.save()
    assert open_dataset_refresh(now=later(1)) == "built"
    manifest = OpenDataset.objects.get().manifest
    assert manifest["parts_rebuilt"] == [parts.part_of(named.pk, WIDE)]
    assert named.entrant_name not in {row["entrant"] for row in all_raw_rows(manifest)}
    gone = anonymous.pk
    anonymous.delete()
    assert open_dataset_refresh(now=later(2)) == "built"
    manifest = OpenDataset.objects.get().manifest
    assert manifest["parts_amended"] == [parts.part_of(gone, WIDE)]
    (delta,) = next(p for p in manifest["parts"] if p["part"] == parts.part_of(gone, WIDE))[
        "deltas"
    ]
    assert (delta["replaces"], delta["entries"]) == ([gone], 0)
    assert_equals_the_registry(client, 3)


def test_a_part_is_written_whole_again_once_its_deltas_replace_an_eighth_of_it(wide):
    public, *_ = wide
    open_dataset_refresh()
    first = Submission.objects.filter(contest=public).order_by("id")
    part = parts.part_of(first[0].pk, WIDE)
    in_part = [e for e in first if parts.part_of(e.pk, WIDE) == part]
    shapes = []
    for number, entry in enumerate(in_part, start=1):
        entry.os = f"Edited {number}"
        entry.save()
        open_dataset_refresh(now=later(number))
        manifest = OpenDataset.objects.get().manifest
        held = next(p for p in manifest["parts"] if p["part"] == part)
        shapes.append([len(d["replaces"]) for d in held["deltas"]])
        if not held["deltas"]:
            break
    # A binary counter: 1, 2, 2+1, 4, ... until the deltas would replace more than an eighth.
    assert shapes[:4] == [[1], [2], [2, 1], [4]], shapes
    assert shapes[-1] == [] and len(shapes) * 8 > len(in_part), shapes


def test_a_build_that_fails_while_amending_leaves_everything_as_it_was(client, wide):
    public, *_ = wide
    open_dataset_refresh()
    served = OpenDataset.objects.get().manifest
    entry = Submission.objects.filter(contest=public).order_by("id")[2]
    SampleSeries.objects.filter(submission=entry).delete()
    SampleSeriesFactory(submission=entry, count=4)
    SampleSeries.objects.filter(submission=entry).update(columns=b"not a packed series")
    Contest.objects.filter(pk=public.pk).update(board_version=10**9)  # the dataset is due
    logged = set(OpenDataChange.objects.values_list("id", flat=True))
    with pytest.raises(Exception):  # noqa: B017 (whatever the unpacking raises)
        open_dataset_refresh(now=later(1))
    row = OpenDataset.objects.get()
    assert row.manifest == served and row.last_error
    assert set(OpenDataChange.objects.values_list("id", flat=True)) == logged
    assert [p.name for p in build.dataset_root().iterdir()] == [served["build"]]
    SampleSeries.objects.filter(submission=entry).delete()
    SampleSeriesFactory(submission=entry, count=4)
    assert open_dataset_refresh(now=later(2)) == "built"
    assert_equals_the_registry(client, 3)


def build_rows_read() -> int:
    return rows_read(
        "submissions_submission", "submissions_sampleseries", "submissions_opendatachange"
    )


def file_states(manifest: dict) -> dict[str, str]:
    return {item["name"]: item["sha256"] for item in manifest["files"]}


def one_change_build(contest, *, size: int, change: str, seconds: int) -> tuple:
    """(queries, rows read, files written, parts amended) of the build after one change of an
    old entry (or one upload), `size` entries in one part."""
    for number in range(size - Submission.objects.count()):
        SubmissionFactory(
            contest=contest, seconds_to_target=2000.0 + number, eligible=False, publish=False
        )
    assert open_dataset_refresh(now=later(seconds)) == "built"
    before = file_states(OpenDataset.objects.get().manifest)
    oldest = Submission.objects.order_by("id")[1]  # never ranked, anonymous
    if change == "edit":
        oldest.solution_description += " Edited."
        oldest.save()
    elif change == "delete":
        oldest.delete()
    else:
        upload = SubmissionFactory(contest=contest, eligible=False)
        SampleSeriesFactory(submission=upload, count=5)
    with connection.cursor() as cursor:
        # The plans of a registry with statistics (the tally's end of an index, not a sort of
        # the contest's entries, which an earlier test's statistics can make the planner take),
        # and of a large one (an index, not a scan of this test's small table).
        cursor.execute("ANALYZE submissions_submission")
        cursor.execute("SET LOCAL enable_seqscan = off")
    start = build_rows_read()
    with CaptureQueriesContext(connection) as queries:
        assert open_dataset_refresh(now=later(seconds + 1)) == "built"
    read = build_rows_read() - start
    manifest = OpenDataset.objects.get().manifest
    after = file_states(manifest)
    written = {name for name in after if before.get(name) != after[name]}
    return len(queries), read, len(written), manifest["parts_amended"]


@pytest.mark.parametrize("change", ["edit", "delete", "upload"])
def test_the_build_after_one_change_in_a_full_part_costs_the_same_at_two_sizes(settings, change):
    """Issue 44: an edit, a deletion or an upload into a part of 12 or 60 entries writes a
    delta of that entry: the same queries, rows read and files written at both sizes."""
    if connection.vendor != "postgresql":
        pytest.skip("the rows read are PostgreSQL's counters")
    settings.OPEN_DATA_PART_IDS = 10**9  # every entry in part 0
    settings.OPEN_DATA_MIN_INTERVAL_SECONDS = 0
    contest = ContestFactory(slug="one-part")
    small = one_change_build(contest, size=13, change=change, seconds=100)
    large = one_change_build(contest, size=61, change=change, seconds=200)
    assert small[3] == large[3] == [0], (small, large)  # a delta, not the part again
    assert small[0] == large[0], (small, large)
    assert large[1] <= small[1] + 2, (small, large)
    assert small[2] == large[2] == 4, (small, large)
