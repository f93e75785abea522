"""PostgreSQL's memory at 1/k (issue 33 §2): its data lives in shared_buffers and the page
cache, so a verification's server runs in a memory cgroup sized to the declared RAM scaled 1/k
above the server's own headroom, not below a floor; a scale past the floor is refused. Pure."""

from submissions.setup.page_cache import (
    FLOOR,
    HEADROOM,
    max_ram_scale,
    postgresql_memory_limit,
    scaled_ram,
)
from submissions.setup.scaling import max_scale, rerun_settings
from submissions.setup.server_settings import MYSQL, POSTGRESQL

MIB = 1 << 20
GIB = 1 << 30


def test_the_ram_above_the_servers_headroom_is_divided_by_the_scale():
    four = scaled_ram(4 * GIB, 10)
    # About a tenth of the RAM, plus the server's own headroom once, not a tenth of it.
    assert 4 * GIB / 10 < four < 4 * GIB / 10 + HEADROOM
    # Each GB more of RAM is a tenth of a GB more of limit.
    assert abs(scaled_ram(8 * GIB, 10) - four - 4 * GIB / 10) <= 1
    # At its own size a claim keeps its RAM.
    assert scaled_ram(4 * GIB, 1) == 4 * GIB


def test_a_small_ram_scaled_far_stops_at_the_floor():
    assert scaled_ram(256 * MIB, 100) == HEADROOM + FLOOR
    assert scaled_ram(256 * MIB, 2) > HEADROOM + FLOOR
    # The largest scale that keeps the floor, and one more takes it below.
    k = max_ram_scale(256 * MIB)
    assert (256 * MIB - HEADROOM) / k >= FLOOR > (256 * MIB - HEADROOM) / (k + 1)


def test_the_limits_note_names_the_declared_ram_the_scale_and_the_headroom():
    limit = postgresql_memory_limit(1.5, 10)
    assert limit.limit == scaled_ram(int(1.5 * GIB), 10)
    assert "the declared 1.5 GB RAM scaled 1/10" in limit.note
    assert f"above {HEADROOM // MIB} MB for the server's own processes" in limit.note
    assert "bounds shared_buffers and the page cache together" in limit.note
    assert "(its floor)" in postgresql_memory_limit(0.1, 50).note
    # Nothing declared, nothing to scale.
    assert postgresql_memory_limit(0, 10) is None


def postgresql_rerun(memory_gb: float, scale: int, server_family: str = POSTGRESQL):
    return rerun_settings(
        {"shared_buffers": "1GB"},
        entry_family=POSTGRESQL,
        server_family=server_family,
        scale=scale,
        memory_gb=memory_gb,
        options={},  # no server binary in a pure test: nothing is applied by name
        free_memory=64 * GIB,
    )


def test_a_postgresql_rerun_runs_in_the_declared_ram_scaled():
    asked = postgresql_rerun(4, 10)
    assert asked.memory_limit == scaled_ram(4 * GIB, 10)
    assert asked.ram_note and asked.ram_note in asked.notes
    # The worst-case ceiling a MariaDB server gets is not the RAM: no ram note there.
    mariadb = rerun_settings(
        {"innodb_buffer_pool_size": "1G"},
        entry_family=MYSQL,
        server_family=MYSQL,
        scale=10,
        memory_gb=4,
        options={},
        free_memory=64 * GIB,
    )
    assert mariadb.ram_note == ""


def test_a_postgresql_entry_that_declared_no_ram_has_no_scaled_ram():
    asked = postgresql_rerun(0, 10)
    assert asked.ram_note == ""
    assert asked.memory_limit != scaled_ram(0, 10)


def test_a_scale_past_the_rams_floor_is_refused_with_the_largest_that_keeps_it():
    found = max_scale({}, family=POSTGRESQL, memory_gb=0.25)
    assert found == (max_ram_scale(GIB // 4), "declared RAM")
    assert max_scale({}, family=POSTGRESQL, memory_gb=0) is None
