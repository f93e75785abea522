"""The open dataset built in parts (issue 44): after a full build, an upload rewrites the files
of the one part holding it and links every other part's (same inode, same mtime, same
checksum); an upload that moves other entries' ranks rewrites its part and its contest's ranks
file alone;
a deletion and a move to another contest rebuild the part holding the entry, and a part left
empty is dropped; the whole download and the parts equal a fresh full build's rows; the page
and the API list the parts with their sizes and build times."""

from __future__ import annotations

import io
import os
from datetime import timedelta

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from submissions.contests.ranks import contest_board_changed, ranks_of
from submissions.live.models import LiveRun
from submissions.models import OpenDataChange, OpenDataset, Submission
from submissions.opendata import build, parts
from submissions.opendata.state import open_dataset_refresh
from testing.factories import ContestFactory, SampleSeriesFactory, SubmissionFactory, UserFactory
from testing.reads import rows_read

pytestmark = pytest.mark.django_db

WIDTH = 3  # entry ids per part: the registry below spans three parts or more


@pytest.fixture
def registry(settings):
    settings.OPEN_DATA_PART_IDS = WIDTH
    settings.OPEN_DATA_MIN_INTERVAL_SECONDS = 0
    contest = ContestFactory(slug="parted")
    entries = []
    for number in range(8):
        entry = SubmissionFactory(
            contest=contest,
            seconds_to_target=1000.0 * (number + 1),  # ranked in id order
            eligible=number % 4 != 3,
            verdicts=[{"rule": "memory", "status": "pass", "message": f"ok {number}"}],
        )
        SampleSeriesFactory(submission=entry, count=5 + number)
        entries.append(entry)
    return contest, entries


def served_manifest() -> dict:
    return OpenDataset.objects.get().manifest


def file_states(manifest: dict) -> dict[str, tuple[int, int, str]]:
    """{file name: (inode, mtime in ns, checksum)} of the build's files as they are on disk."""
    folder = build.build_folder(manifest["build"])
    states = {}
    for item in manifest["files"]:
        stat = os.stat(folder / item["name"])
        states[item["name"]] = (stat.st_ino, stat.st_mtime_ns, item["sha256"])
    return states


def part_files(part: int) -> set[str]:
    return {parts.file_name(table, part) for table in build.FILES}


def table_rows(manifest: dict, table: str) -> list[dict]:
    folder = build.build_folder(manifest["build"])
    paths = [folder / item["name"] for item in manifest["files"] if item["table"] == table]
    schema = build.SCHEMAS[table]
    if not paths:
        return []
    return pa.concat_tables(
        pq.read_table(path, schema=build.tables.schema_of(schema)) for path in paths
    ).to_pylist()


def later(seconds: int) -> timezone.datetime:
    return timezone.now() + timedelta(seconds=seconds)


def test_an_upload_after_a_full_build_rewrites_one_part_and_links_the_rest(registry):
    contest, entries = registry
    assert open_dataset_refresh() == "built"
    first = served_manifest()
    held = {item["part"] for item in first["parts"]}
    assert len(held) >= 3 and first["parts_rebuilt"] == sorted(held)
    before = file_states(first)
    # Not ranked (ineligible): no other entry's rank moves.
    newcomer = SubmissionFactory(contest=contest, entrant_name="Newcomer", eligible=False)
    SampleSeriesFactory(submission=newcomer, count=4)
    assert open_dataset_refresh(now=later(1)) == "built"
    second = served_manifest()
    mine = parts.part_of(newcomer.pk, WIDTH)
    assert (second["parts_rebuilt"], second["ranks_rewritten"]) == ([mine], [])
    after = file_states(second)
    changed = {name for name in after if before.get(name) != after[name]}
    assert changed == part_files(mine)
    for name in set(after) - part_files(mine):  # the very same file, not a copy
        assert after[name] == before[name]
    # The part rewritten holds the entries of its id range, the newcomer among them.
    first_id, last_id = parts.id_range(mine, WIDTH)
    in_range = sorted(e.pk for e in [*entries, newcomer] if first_id <= e.pk <= last_id)
    folder = build.build_folder(second["build"])
    rows = pq.read_table(folder / parts.file_name("entries.parquet", mine)).to_pylist()
    assert [row["id"] for row in rows] == in_range
    row = next(row for row in rows if row["id"] == newcomer.pk)
    assert (row["entrant"], row["series_reports"]) == ("Newcomer", 4)
    assert newcomer.pk not in {r["entry_id"] for r in table_rows(second, "ranks.parquet")}
    series = pq.read_table(folder / parts.file_name("series.parquet", mine))
    assert series.filter(pa.compute.equal(series["entry_id"], newcomer.pk)).num_rows == 4
    described = next(p for p in second["parts"] if p["part"] == mine)
    assert described["built_at"] == second["built_at"] and described["entries"] == len(in_range)
    untouched = next(p for p in second["parts"] if p["part"] != mine)
    assert untouched["built_at"] == first["built_at"]


def ranks_files(contest) -> set[str]:
    return {parts.file_name(table, contest.pk) for table in parts.RANK_TABLES}


def test_an_upload_that_moves_ranks_rewrites_its_part_and_its_contest_s_ranks_file(registry):
    contest, _entries = registry
    open_dataset_refresh()
    before = file_states(served_manifest())
    # Ranked first: every ranked entry moves down one place.
    leader = SubmissionFactory(contest=contest, seconds_to_target=10.0)
    assert open_dataset_refresh(now=later(1)) == "built"
    manifest = served_manifest()
    mine = parts.part_of(leader.pk, WIDTH)
    assert (manifest["parts_rebuilt"], manifest["ranks_rewritten"]) == ([mine], [contest.slug])
    after = file_states(manifest)
    changed = {name for name in after if before.get(name) != after[name]}
    assert changed == part_files(mine) | ranks_files(contest)  # every other part linked
    ranks = ranks_of(contest=contest)
    assert ranks[leader.pk] == 1
    published = table_rows(manifest, "ranks.parquet")
    assert {row["entry_id"]: row["rank"] for row in published} == ranks
    assert [row["rank"] for row in published] == sorted(ranks.values())  # in rank order
    folder = build.build_folder(manifest["build"])
    csv = pa_csv.read_csv(folder / parts.file_name("ranks.csv", contest.pk)).to_pylist()
    assert csv == published


def test_a_deletion_rebuilds_its_part_and_an_emptied_part_is_dropped(registry):
    _contest, entries = registry
    open_dataset_refresh()
    gone = entries[3]  # not ranked: no rank moves
    gone_id, gone_part = gone.pk, parts.part_of(gone.pk, WIDTH)
    gone.delete()
    assert open_dataset_refresh(now=later(1)) == "built"
    manifest = served_manifest()
    assert manifest["parts_rebuilt"] == [gone_part]
    ids = [row["id"] for row in table_rows(manifest, "entries.parquet")]
    assert gone_id not in ids and len(ids) == 7
    assert gone_id not in {row["entry_id"] for row in table_rows(manifest, "series.parquet")}
    # Every entry of the last part deleted: the part is gone, its files with it.
    last = max(p["part"] for p in manifest["parts"])
    for entry in entries[4:]:
        if parts.part_of(entry.pk, WIDTH) == last:
            entry.delete()
    open_dataset_refresh(now=later(2))
    manifest = served_manifest()
    assert manifest["parts_dropped"] == [last]
    assert last not in {p["part"] for p in manifest["parts"]}
    assert not part_files(last) & set(os.listdir(build.build_folder(manifest["build"])))


def test_a_move_to_another_contest_rebuilds_its_part(registry):
    _contest, entries = registry
    other = ContestFactory(slug="elsewhere")
    open_dataset_refresh()
    moved = entries[6]  # ranked last of its contest: moving it moves no other rank
    moved.contest = other
    moved.save()
    assert open_dataset_refresh(now=later(1)) == "built"
    manifest = served_manifest()
    assert manifest["parts_rebuilt"] == [parts.part_of(moved.pk, WIDTH)]
    row = next(r for r in table_rows(manifest, "entries.parquet") if r["id"] == moved.pk)
    ranked = {
        (r["entry_id"], r["contest"], r["rank"]) for r in table_rows(manifest, "ranks.parquet")
    }
    assert row["contest"] == "elsewhere" and (moved.pk, "elsewhere", 1) in ranked
    assert moved.pk not in {r[0] for r in ranked if r[1] == "parted"}
    counts = {c["slug"]: c["entries"] for c in manifest["contests"]}
    assert counts == {"parted": 7, "elsewhere": 1}


def test_the_parts_and_the_whole_download_equal_a_fresh_full_build(client, registry):
    contest, entries = registry
    open_dataset_refresh()
    # The new entry, the deletion and the change all fall in the last parts, wherever the ids
    # begin: the first entry's part (6 ids or more below them) is kept, not rebuilt.
    SubmissionFactory(contest=contest, seconds_to_target=10.0, storage_engine="=SUM(1)")
    entries[7].delete()
    entries[6].terminal_rate = 1.0
    entries[6].save()
    open_dataset_refresh(now=later(1))
    incremental = served_manifest()
    assert incremental["parts_kept"] > 0
    fresh, _ = build.build_dataset(built_at=later(2), served=None)  # every part written anew
    assert fresh["parts_rebuilt"] == [p["part"] for p in fresh["parts"]]
    for table in ("entries.parquet", "verdicts.parquet", "series.parquet", "ranks.parquet"):
        assert table_rows(incremental, table) == table_rows(fresh, table), table
    response = client.get("/open-data/entries.csv")
    assert response.status_code == 200 and response["ETag"]
    body = b"".join(response.streaming_content)
    assert int(response["Content-Length"]) == len(body)
    folder = build.build_folder(fresh["build"])
    # Each part's CSV read on its own guesses its columns' types: a part whose entries all lack
    # a value reads that column as null, which joins the others' type, and an empty cell reads
    # as null everywhere.
    empty_is_null = pa_csv.ConvertOptions(strings_can_be_null=True)
    fresh_csv = pa.concat_tables(
        (
            pa_csv.read_csv(folder / item["name"], convert_options=empty_is_null)
            for item in fresh["files"]
            if item["table"] == "entries.csv"
        ),
        promote_options="permissive",
    )
    whole = pa_csv.read_csv(io.BytesIO(body), convert_options=empty_is_null)
    assert whole.to_pylist() == fresh_csv.to_pylist()
    assert "'=SUM(1)" in whole.column("storage_engine").to_pylist()
    assert (
        client.get(
            "/open-data/entries.csv", headers={"If-None-Match": response["ETag"]}
        ).status_code
        == 304
    )


def test_the_page_and_the_api_list_the_parts_with_sizes_and_build_times(client, registry):
    open_dataset_refresh()
    api = client.get("/api/dataset/").json()
    page = client.get("/open-data/").content.decode()
    assert len(api["parts"]) >= 3 and api["part_ids"] == WIDTH
    for part in api["parts"]:
        assert part["first_id"] == part["part"] * WIDTH and part["built_at"] == api["built_at"]
        for item in part["files"]:
            assert item["url"] in page and item["sha256"] in page
            assert item["bytes"] > 0 and item["built_at"] == part["built_at"]
            assert client.get(item["url"]).status_code == 200
    (ranked,) = api["ranks"]
    for item in ranked["files"]:
        assert item["url"] in page and item["sha256"] in page
        assert client.get(item["url"]).status_code == 200
    (whole,) = api["whole"]
    assert whole["url"].endswith("/open-data/entries.csv") and whole["rows"] == 8
    assert whole["url"] in page
    missing = client.get("/open-data/entries.parquet")
    assert missing.status_code == 404 and "comes in parts" in missing.content.decode()
    assert client.get("/open-data/entries-999999.parquet").status_code == 404


def test_a_change_made_by_a_bulk_update_rebuilds_its_part(registry):
    """No save(), no signal: the database's trigger logs the entry all the same."""
    _contest, entries = registry
    open_dataset_refresh()
    judged = entries[3]  # not ranked: the rank of no entry moves
    type(judged).objects.filter(pk=judged.pk).update(verification="reproduced")
    contest_board_changed(contest_id=judged.contest_id)  # as every writer of an entry does
    assert open_dataset_refresh(now=later(1)) == "built"
    manifest = served_manifest()
    assert manifest["parts_rebuilt"] == [parts.part_of(judged.pk, WIDTH)]
    row = next(r for r in table_rows(manifest, "entries.parquet") if r["id"] == judged.pk)
    assert (row["verification"], row["verified"]) == ("reproduced", True)


def test_a_part_file_gone_from_the_served_build_is_rebuilt_not_linked(registry):
    contest, _entries = registry
    open_dataset_refresh()
    first = served_manifest()
    lost = first["files"][2]  # part 0's series
    (build.build_folder(first["build"]) / lost["name"]).unlink()
    SubmissionFactory(contest=contest, eligible=False)
    assert open_dataset_refresh(now=later(1)) == "built"
    manifest = served_manifest()
    assert lost["part"] in manifest["parts_rebuilt"]
    again = next(item for item in manifest["files"] if item["name"] == lost["name"])
    assert (again["rows"], again["sha256"]) == (lost["rows"], lost["sha256"])


def logged() -> set[int]:
    return set(OpenDataChange.objects.values_list("entry_id", flat=True))


def test_every_write_of_an_entry_its_series_or_its_stream_is_logged(registry):
    """The triggers log the entry whatever wrote it: an insert, a save, a bulk UPDATE, a
    deletion (by cascade too), its series and its stream; a build served forgets what it read."""
    contest, entries = registry
    open_dataset_refresh()
    assert logged() == set()  # the build served consumed the log
    entries[1].solution_description = "Edited."
    entries[1].save()
    type(entries[2]).objects.filter(pk=entries[2].pk).update(cpu_model="Bulk")
    entries[3].series.delete()
    LiveRun.objects.create(
        contest=contest, owner=UserFactory(), run_key="k", submission=entries[4], witnessed=True
    )
    streaming = LiveRun.objects.create(contest=contest, owner=UserFactory(), run_key="open")
    streaming.line_count = 10  # a stream not yet an entry: nothing to log, and no error
    streaming.save()
    newcomer = SubmissionFactory(contest=contest, eligible=False)
    assert logged() == {entries[1].pk, entries[2].pk, entries[3].pk, entries[4].pk, newcomer.pk}
    gone = entries[5].pk
    entries[5].delete()  # its series goes by cascade: logged once or twice, the same entry
    assert gone in logged()
    open_dataset_refresh(now=later(1))
    assert logged() == set()


def build_rows_read() -> int:
    """Rows of the entries' and series' tables read in this transaction (PostgreSQL's counters
    of the transaction, which a TestCase's test runs in): by scans and index fetches."""
    return rows_read(
        "submissions_submission", "submissions_sampleseries", "submissions_opendatachange"
    )


def one_upload_build(contest, *, size: int, ranked: bool) -> tuple[int, int, set[str]]:
    """(queries, rows read, files written) of the build after one upload, `size` entries in."""
    for number in range(size - Submission.objects.count()):
        SubmissionFactory(contest=contest, seconds_to_target=2000.0 + number, eligible=False)
    assert open_dataset_refresh(now=later(size)) == "built"  # every entry but the upload's
    before = file_states(served_manifest())
    upload = SubmissionFactory(
        contest=contest, seconds_to_target=1.0 if ranked else 5e9, eligible=ranked
    )
    SampleSeriesFactory(submission=upload, count=5)
    with connection.cursor() as cursor:
        # The plans a registry of a million entries gets (an index, not a scan of a table the
        # size of this test's): the rows read then count what the build asked for.
        cursor.execute("SET LOCAL enable_seqscan = off")
    start = build_rows_read()
    with CaptureQueriesContext(connection) as queries:
        assert open_dataset_refresh(now=later(size + 1)) == "built"
    read = build_rows_read() - start
    after = file_states(served_manifest())
    return len(queries), read, {name for name in after if before.get(name) != after[name]}


@pytest.mark.parametrize("ranked", [False, True], ids=["moving-no-rank", "ranked-first"])
def test_the_build_after_one_upload_costs_the_same_at_two_registry_sizes(settings, ranked):
    """Issue 44: the build after one upload reads the log, the contests, their tallies and the
    upload's part (and, when ranks moved, its contest's ranked entries): its queries, the rows
    it reads and the files it writes do not grow with the registry."""
    settings.OPEN_DATA_PART_IDS = WIDTH
    settings.OPEN_DATA_MIN_INTERVAL_SECONDS = 0
    if connection.vendor != "postgresql":
        pytest.skip("the rows read are PostgreSQL's counters")
    contest = ContestFactory(slug="growing")
    # A few ranked entries, the same at both sizes: the ranks file is O(ranked entries).
    for number in range(3):
        SubmissionFactory(contest=contest, seconds_to_target=100.0 + number)
    small = one_upload_build(contest, size=12, ranked=ranked)
    large = one_upload_build(contest, size=60, ranked=ranked)
    assert small[0] == large[0], (small, large)  # the same queries
    assert large[1] <= small[1] + 2, (small, large)  # the same rows read, near enough
    assert len(small[2]) == len(large[2]) == (4 + 2 * ranked), (small[2], large[2])


def test_an_edit_of_a_ranked_entry_rewrites_its_ranks_only_when_its_ranking_moved(registry):
    contest, entries = registry
    if connection.vendor != "postgresql":
        pytest.skip("SQLite keeps no tally: its ranks are read again at every build")
    open_dataset_refresh()
    entries[0].solution_description = "Edited, same time."
    entries[0].save()
    assert open_dataset_refresh(now=later(1)) == "built"
    assert served_manifest()["ranks_rewritten"] == []
    entries[0].seconds_to_target = 1e9  # ranked first before, last now
    entries[0].save()
    assert open_dataset_refresh(now=later(2)) == "built"
    manifest = served_manifest()
    assert manifest["ranks_rewritten"] == [contest.slug]
    published = {row["entry_id"]: row["rank"] for row in table_rows(manifest, "ranks.parquet")}
    assert published == ranks_of(contest=contest) and published[entries[0].pk] > 1
