"""The seeds' table (tracks/reproduced.py, contests/reference_rows.reproduction_store, /seeds/):
the runs a comparison makes at 1/k, the figures read from their reports, each run stored with a
reference row "reproduced on <host> at 1/k" in the contests of its workload, and the page that
shows the published ratios (18x, 35x, 7.6x) beside the measured ones, with the curves."""

import pytest

from submissions.contests.reference_rows import reproduction_store, seeds_table
from submissions.models import ReferenceResult, SeedReproduction, Workload
from submissions.tracks.reproduced import (
    BY_KEY,
    COMPARISONS,
    GIB,
    Measured,
    engine_runs,
    measured_from_reports,
    memory_limit_text,
    published_ratio_value,
    ratio_of,
)
from testing.factories import ContestFactory

MIB = 1 << 20


def test_a_comparison_at_1_in_k_runs_rows_and_memory_divided_by_k():
    runs = {run.engine: run for run in engine_runs(BY_KEY["classic"], 1000)}
    assert set(runs) == {"ROCKSDB", "InnoDB", "Aria", "PostgreSQL"}
    innodb = runs["InnoDB"]
    assert innodb.rows == 1_000_000
    assert innodb.cache_key == "innodb_buffer_pool_size"
    assert innodb.cache_bytes == int(16 * 1024 * MIB * 0.7 / 1000) // 1024 * 1024  # 11.2 MB
    assert not innodb.cache_at_floor
    assert runs["PostgreSQL"].cache_setting() == {"shared_buffers": "11744kB"}
    assert runs["ROCKSDB"].benchmark_engine == "ROCKSDB"
    assert runs["PostgreSQL"].benchmark_engine is None
    fifo = engine_runs(BY_KEY["fifo"], 1000, engines=["InnoDB"])
    assert [(run.engine, run.rows, run.delete_after) for run in fifo] == [
        ("InnoDB", 500_000, 250_000)
    ]


def test_a_cache_below_its_floor_is_held_there_and_said_so():
    (run,) = engine_runs(BY_KEY["ssd"], 1000, engines=["InnoDB"])  # 2 GB x 0.7 / 1000
    assert run.cache_bytes == 8 * MIB and run.cache_at_floor
    with pytest.raises(ValueError, match="at least 1"):
        engine_runs(BY_KEY["classic"], 0)


def test_page_cache_engines_run_in_a_cgroup_of_the_seed_memory_scaled_and_pools_in_none():
    at_2000 = {run.engine: run for run in engine_runs(BY_KEY["classic"], 2000)}
    assert at_2000["InnoDB"].page_cache is None and at_2000["ROCKSDB"].page_cache is None
    postgresql, aria = at_2000["PostgreSQL"].page_cache, at_2000["Aria"].page_cache
    # 16 GB above the headroom / 2,000 is 8.2 MB: held at the floor (21 + 19 MB, 70 + 14 MB).
    assert postgresql.limit == 40 * MIB and postgresql.at_floor
    assert postgresql.above_headroom == round((16 * GIB - 21 * MIB) / 2000)
    assert aria.limit == 84 * MIB and aria.at_floor
    at_100 = {run.engine: run.page_cache for run in engine_runs(BY_KEY["classic"], 100)}
    assert at_100["PostgreSQL"].limit == 21 * MIB + round((16 * GIB - 21 * MIB) / 100)  # 185 MB
    assert at_100["Aria"].limit == 70 * MIB + round((16 * GIB - 70 * MIB) / 100)
    assert not at_100["PostgreSQL"].at_floor
    (myisam,) = engine_runs(BY_KEY["queries"], 1000, engines=["MyISAM"])  # 8 GB / 1,000
    assert myisam.page_cache.limit == 64 * MIB and myisam.page_cache.at_floor
    (whole,) = engine_runs(BY_KEY["classic"], 1, engines=["PostgreSQL"])
    assert whole.page_cache.limit == 16 * GIB and not whole.page_cache.at_floor


def test_the_cache_fits_in_the_cgroup_above_its_headroom_at_every_scale():
    for comparison in COMPARISONS:
        for scale in (1, 2, 10, 100, 1000, 2000, 10_000, 1_000_000):
            for run in engine_runs(comparison, scale):
                if run.page_cache is not None:
                    room = run.page_cache.limit - run.page_cache.headroom
                    assert run.cache_bytes <= room, (comparison.key, scale, run.engine)


def test_mariadb_page_cache_engines_start_innodb_at_its_floor_as_their_rule_was_measured():
    (aria,) = engine_runs(BY_KEY["classic"], 2000, engines=["Aria"])
    assert aria.memory_settings() == {
        "innodb_buffer_pool_size": "8192K",
        "aria_pagecache_buffer_size": "5872K",
    }
    (postgresql,) = engine_runs(BY_KEY["classic"], 2000, engines=["PostgreSQL"])
    assert postgresql.memory_settings() == {"shared_buffers": "5872kB"}


def test_a_run_says_its_limit_read_back_or_why_its_page_cache_was_not_bounded():
    runs = {run.engine: run for run in engine_runs(BY_KEY["classic"], 2000)}
    assert memory_limit_text(runs["PostgreSQL"], 40 * MIB) == (
        "memory limit 40 MB read back from the cgroup: the seed host's 16 GB scaled 1/2,000 "
        "above PostgreSQL's 21 MB headroom, held at its floor of 19 MB above it (8.2 MB "
        "scaled): more memory per row than the seed host had"
    )
    # The kernel may round what it was asked: the page says both.
    assert memory_limit_text(runs["Aria"], 80 * MIB).startswith(
        "memory limit 80 MB read back from the cgroup (84 MB asked): the seed host's 16 GB"
    )
    assert memory_limit_text(runs["Aria"], None, "cannot make a cgroup at /x: Read-only") == (
        "no memory limit (cannot make a cgroup at /x: Read-only): its page cache was not "
        "bounded to the seed host's memory scaled 1/2,000"
    )
    assert memory_limit_text(runs["InnoDB"], None) == (
        "no memory cgroup needed: InnoDB keeps its data in its own pool (innodb_buffer_pool_size)"
    )


def test_the_published_ratios_are_the_briefs():
    assert round(published_ratio_value(BY_KEY["classic"]), 1) == 18.1
    assert round(published_ratio_value(BY_KEY["fifo"]), 1) == 34.8
    assert round(published_ratio_value(BY_KEY["ssd"]), 1) == 7.6
    assert round(published_ratio_value(BY_KEY["queries"]), 1) == 2.5


def test_ratios_compare_rates_one_way_and_query_times_the_other():
    assert ratio_of(BY_KEY["classic"], {"ROCKSDB": 9_000, "InnoDB": 1_000}) == 9
    assert ratio_of(BY_KEY["queries"], {"ROCKSDB": 0.5, "MyISAM": 2.0}) == 4
    assert ratio_of(BY_KEY["classic"], {"ROCKSDB": 9_000}) is None  # the baseline failed
    assert ratio_of(BY_KEY["classic"], {"ROCKSDB": 9_000, "InnoDB": None}) is None


def test_the_terminal_rate_is_over_the_runs_last_reports():
    rows = list(range(10_000, 1_000_001, 10_000))  # 100 reports
    rates = [20_000.0] * 50 + [1_000.0] * 50
    seconds, at = [], 0.0
    for rate in rates:
        at += 10_000 / rate
        seconds.append(at)
    measured = measured_from_reports(rows, seconds, rates, None, seed_rows=1_000_000_000)
    assert measured.terminal_rate == pytest.approx(1_000)
    assert measured.rows == 1_000_000
    assert measured.query_seconds is None
    assert measured.curve[0] == (10_000, 20_000.0)
    queries = [n * 4 for n in range(1, 101)]  # 4 queries every report of 10 s at the end
    timed = measured_from_reports(rows, seconds, rates, queries, seed_rows=125_000_000)
    assert timed.query_seconds == pytest.approx(2.5)


def _measured(rate: float, curve=((1_000, 5_000.0), (2_000, 4_000.0))) -> Measured:
    return Measured(2_000, 1.0, rate, rate * 1.5, None, list(curve))


@pytest.mark.django_db
def test_a_run_is_stored_with_a_reference_row_in_each_contest_of_its_workload():
    classic = ContestFactory(slug="classic-one")
    fifo = ContestFactory(slug="fifo-one", workload=Workload.FIFO)
    (rocks,) = engine_runs(BY_KEY["classic"], 500_000, engines=["ROCKSDB"])
    stored = reproduction_store(run=rocks, measured=_measured(9_000), host="vm-7", load="0.5")
    assert (stored.status, stored.terminal_rate, stored.rows) == ("completed", 9_000, 2_000)
    reference = ReferenceResult.objects.get(contest=classic)
    assert reference.label == "MyRocks reproduced on vm-7 at 1/500,000 (classic comparison)"
    assert reference.terminal_rate == 9_000
    assert "Published (TokuDB performance brief (seeds/001)): InnoDB 876" in reference.note
    assert not ReferenceResult.objects.filter(contest=fifo).exists()
    # Run again on the same host and scale: replaced, not added.
    reproduction_store(run=rocks, measured=_measured(8_000), host="vm-7")
    assert SeedReproduction.objects.get().terminal_rate == 8_000
    assert ReferenceResult.objects.get(contest=classic).terminal_rate == 8_000
    # A failed run is kept with its reason and adds no reference row.
    (innodb,) = engine_runs(BY_KEY["classic"], 500_000, engines=["InnoDB"])
    failed = reproduction_store(run=innodb, measured=None, host="vm-7", message="it broke")
    assert failed.status == "failed" and "it broke" in failed.message
    assert "held at its floor" in failed.message
    assert ReferenceResult.objects.filter(contest=classic).count() == 1
    (row, *_) = seeds_table()
    assert row.measured[0].ratio is None  # no InnoDB figure: no ratio


@pytest.mark.django_db
def test_the_page_shows_published_ratios_beside_the_measured_ones_with_curves(client):
    for engine, rate in (("ROCKSDB", 9_000), ("InnoDB", 1_000)):
        (run,) = engine_runs(BY_KEY["classic"], 500_000, engines=[engine])
        reproduction_store(run=run, measured=_measured(rate), host="vm-<7>", load="0.5")
    for engine, seconds in (("ROCKSDB", 0.00077), ("MyISAM", 0.0035)):
        (run,) = engine_runs(BY_KEY["queries"], 500_000, engines=[engine])
        timed = Measured(1_000, 1.0, 5_000.0, 5_000.0, seconds, [(1_000, 5_000.0)])
        reproduction_store(run=run, measured=timed, host="vm-<7>")
    (run,) = engine_runs(BY_KEY["fifo"], 500_000, engines=["InnoDB"])
    reproduction_store(run=run, measured=None, host="vm-<7>", message="the server did not answer")

    page = client.get("/seeds/")

    assert page.status_code == 200
    text = page.content.decode()
    for published in ("18x", "35x", "7.6x", "2.5x"):
        assert f"{published} <span" in text
    assert "reproduced on vm-&lt;7&gt; at 1/500,000" in text  # the host's name escaped
    assert "9.0x" in text  # 9,000 / 1,000
    assert "MyRocks 9,000 rows/s (2,000 rows)" in text
    assert "InnoDB <strong>failed</strong>" in text and "the server did not answer" in text
    assert "MyRocks 0.00077 s (1,000 rows)" in text and "MyISAM 0.0035 s" in text
    assert "4.5x" in text  # 3.5 ms / 0.77 ms
    assert "MyISAM 17.7 s; TokuDB 7.2 s" in text
    assert "Not reproduced yet" in text  # the SSD comparison
    curves = page.context["curves"]
    assert [curve["name"] for curve in curves["classic"]] == [
        "MyRocks, vm-<7>, 1/500,000",
        "InnoDB, vm-<7>, 1/500,000",
    ]
    assert curves["classic"][0]["rates"] == [5_000.0, 4_000.0]
    assert 'id="seeds-curve-classic"' in text and "seeds-curves.js" in text


@pytest.mark.django_db
def test_home_and_the_leaderboards_link_to_the_page(client):
    ContestFactory(slug="classic-one")
    assert 'href="/seeds/"' in client.get("/").content.decode()
    assert 'href="/seeds/"' in client.get("/contests/classic-one/").content.decode()


@pytest.mark.django_db
def test_each_run_shows_its_memory_limit_beside_its_cache(client):
    classic = ContestFactory(slug="classic-one")
    runs = {run.engine: run for run in engine_runs(BY_KEY["classic"], 2000)}
    bounded = reproduction_store(
        run=runs["PostgreSQL"], measured=_measured(3_000), host="vm-7", memory_limit=40 * MIB
    )
    unbounded = reproduction_store(
        run=runs["Aria"],
        measured=_measured(2_000),
        host="vm-7",
        no_cgroup="no cgroup memory controller is mounted at /nowhere",
    )
    pooled = reproduction_store(run=runs["InnoDB"], measured=_measured(1_000), host="vm-7")
    assert bounded.memory_limit_bytes == 40 * MIB
    assert (unbounded.status, unbounded.memory_limit_bytes) == ("completed", None)
    assert pooled.memory_limit_bytes is None
    note = ReferenceResult.objects.get(contest=classic, storage_engine="PostgreSQL").note
    assert "shared_buffers=5,872 kB; memory limit 40 MB read back from the cgroup" in note

    text = client.get("/seeds/").content.decode()
    assert 'shared_buffers=5872K; <span class="memory-limit">memory limit 40 MB read back' in text
    assert "held at its floor of 19 MB above it (8.2 MB scaled)" in text
    assert (
        "no memory limit (no cgroup memory controller is mounted at /nowhere): its page cache "
        "was not bounded to the seed host&#x27;s memory scaled 1/2,000"
    ) in text
    assert "no memory cgroup needed: InnoDB keeps its data in its own pool" in text
    assert "InnoDB and MyRocks keep their data in pools of their own" in text
