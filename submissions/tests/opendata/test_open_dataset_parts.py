"""The open dataset built in parts (issue 44): after a full build, an upload rewrites the files
of the one part holding it and links every other part's (same inode, same mtime, same
checksum); an upload that moves other entries' ranks rewrites only those parts' entries files;
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
from django.utils import timezone

from submissions.contests.ranks import contest_board_changed, ranks_of
from submissions.models import OpenDataset
from submissions.opendata import build, parts, reads
from submissions.opendata.state import open_dataset_refresh
from testing.factories import ContestFactory, SampleSeriesFactory, SubmissionFactory

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
    assert (second["parts_rebuilt"], second["parts_reranked"]) == ([mine], [])
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
    assert (row["entrant"], row["rank"], row["series_reports"]) == ("Newcomer", None, 4)
    series = pq.read_table(folder / parts.file_name("series.parquet", mine))
    assert series.filter(pa.compute.equal(series["entry_id"], newcomer.pk)).num_rows == 4
    described = next(p for p in second["parts"] if p["part"] == mine)
    assert described["built_at"] == second["built_at"] and described["entries"] == len(in_range)
    untouched = next(p for p in second["parts"] if p["part"] != mine)
    assert untouched["built_at"] == first["built_at"]


def test_an_upload_that_moves_ranks_rewrites_only_those_parts_entries_files(registry):
    contest, entries = registry
    open_dataset_refresh()
    before = file_states(served_manifest())
    # Ranked first: every ranked entry moves down one place.
    leader = SubmissionFactory(contest=contest, seconds_to_target=10.0)
    assert open_dataset_refresh(now=later(1)) == "built"
    manifest = served_manifest()
    mine = parts.part_of(leader.pk, WIDTH)
    assert manifest["parts_rebuilt"] == [mine]
    ranked_parts = {parts.part_of(e.pk, WIDTH) for e in entries if e.eligible} - {mine}
    assert set(manifest["parts_reranked"]) == ranked_parts
    after = file_states(manifest)
    for part in ranked_parts:  # verdicts and series linked, entries rewritten
        for table in ("verdicts.parquet", "series.parquet"):
            name = parts.file_name(table, part)
            assert after[name] == before[name]
        for table in ("entries.parquet", "entries.csv"):
            name = parts.file_name(table, part)
            assert after[name][2] != before[name][2]
    ranks = ranks_of(contest=contest)
    assert ranks[leader.pk] == 1
    assert {row["id"]: row["rank"] for row in table_rows(manifest, "entries.parquet")} == {
        e.pk: ranks.get(e.pk) for e in [*entries, leader]
    }


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
    assert (row["contest"], row["rank"]) == ("elsewhere", 1)
    counts = {c["slug"]: c["entries"] for c in manifest["contests"]}
    assert counts == {"parted": 7, "elsewhere": 1}


def test_the_parts_and_the_whole_download_equal_a_fresh_full_build(client, registry):
    contest, entries = registry
    open_dataset_refresh()
    # The new entry, the deletion and the change all fall in the last parts, wherever the ids
    # begin: the first entry's part (6 ids or more below them) is kept or reranked, not rebuilt.
    SubmissionFactory(contest=contest, seconds_to_target=10.0, storage_engine="=SUM(1)")
    entries[7].delete()
    entries[6].terminal_rate = 1.0
    entries[6].save()
    open_dataset_refresh(now=later(1))
    incremental = served_manifest()
    assert incremental["parts_kept"] + len(incremental["parts_reranked"]) > 0
    fresh = build.build_dataset(built_at=later(2), served=None)  # every part written anew
    assert fresh["parts_rebuilt"] == [p["part"] for p in fresh["parts"]]
    for table in ("entries.parquet", "verdicts.parquet", "series.parquet"):
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
    (whole,) = api["whole"]
    assert whole["url"].endswith("/open-data/entries.csv") and whole["rows"] == 8
    assert whole["url"] in page
    missing = client.get("/open-data/entries.parquet")
    assert missing.status_code == 404 and "comes in parts" in missing.content.decode()
    assert client.get("/open-data/entries-999999.parquet").status_code == 404


def test_a_change_made_by_a_bulk_update_rebuilds_its_part(registry):
    """No save(), no signal: the row's new version is what the fingerprint sees."""
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


def test_the_row_digests_of_sqlite_s_path_move_with_the_same_changes(registry):
    """The digests read in Python (the SQLite default's path), run here on the same rows: an
    edit moves its part's digest alone, a deletion too."""
    _contest, entries = registry
    contests = reads.public_contests(timezone.now())
    before = reads._rows_digests_python(contests, WIDTH)
    entries[4].solution_description = "Edited."
    entries[4].save()
    edited = reads._rows_digests_python(contests, WIDTH)
    assert {p for p in before if before[p] != edited.get(p)} == {
        parts.part_of(entries[4].pk, WIDTH)
    }
    gone = parts.part_of(entries[0].pk, WIDTH)
    entries[0].delete()
    after = reads._rows_digests_python(contests, WIDTH)
    assert {p for p in edited if edited[p] != after.get(p)} == {gone}
