"""PostgreSQL's, MyISAM's and Aria's memory at 1/k (issue 33 §2, §3): its data lives in shared_buffers and the page
cache, so a verification's server runs in a memory cgroup sized to the declared RAM scaled 1/k
above the server's own headroom, not below a floor; a scale past the floor is refused. Pure."""

from runner.judge.scaling import max_scale, rerun_settings
from submissions.setup.page_cache import (
    ARIA_RAM,
    FLOOR,
    HEADROOM,
    MYISAM_RAM,
    max_ram_scale,
    scaled_ram,
    server_memory_limit,
)
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
    limit = server_memory_limit(1.5, 10, family=POSTGRESQL)
    assert limit.limit == scaled_ram(int(1.5 * GIB), 10)
    assert "the declared 1.5 GB RAM scaled 1/10" in limit.note
    assert f"above {HEADROOM // MIB} MB for the server's own processes" in limit.note
    assert "bounds shared_buffers and the page cache together" in limit.note
    assert "(its floor)" in server_memory_limit(0.1, 50, family=POSTGRESQL).note
    # Nothing declared, nothing to scale.
    assert server_memory_limit(0, 10, family=POSTGRESQL) is None


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


def myisam_rerun(engine: str, memory_gb: float = 4, scale: int = 10):
    return rerun_settings(
        {"key_buffer_size": "512M"},
        entry_family=MYSQL,
        server_family=MYSQL,
        scale=scale,
        memory_gb=memory_gb,
        options={},
        free_memory=64 * GIB,
        engine=engine,
    )


def test_a_myisam_or_aria_rerun_runs_in_the_declared_ram_scaled_an_innodb_one_does_not():
    for engine, rule in (("MyISAM", MYISAM_RAM), ("Aria", ARIA_RAM)):
        asked = myisam_rerun(engine)
        assert asked.memory_limit == scaled_ram(4 * GIB, 10, rule)
        assert asked.in_page_cache
        assert "the declared 4 GB RAM scaled 1/10" in asked.ram_note
        assert asked.ram_note in asked.notes
    innodb = myisam_rerun("InnoDB")
    assert innodb.ram_note == "" and not innodb.in_page_cache
    # Declared no RAM: nothing to scale, and the worker says the page cache was not bounded.
    bare = myisam_rerun("MyISAM", memory_gb=0)
    assert bare.ram_note == "" and bare.in_page_cache


def test_a_myisam_claims_scale_is_limited_by_its_rams_floor_not_innodbs_pool():
    declared = {"innodb_buffer_pool_size": "128M", "key_buffer_size": "128M"}
    found = max_scale(declared, family=MYSQL, memory_gb=0.25, engine="MyISAM")
    assert found == (max_ram_scale(GIB // 4, MYISAM_RAM), "declared RAM")
    # An InnoDB claim's is its pool's, as before.
    assert max_scale(declared, family=MYSQL, memory_gb=0.25, engine="InnoDB")[1] == (
        "innodb_buffer_pool_size"
    )


def test_no_innodb_pool_is_made_up_from_the_ram_of_a_myisam_claim():
    # It would only take the room of MyISAM's page cache in its cgroup.
    assert "innodb_buffer_pool_size" not in myisam_rerun("MyISAM").applied
    assert "innodb_buffer_pool_size" in myisam_rerun("InnoDB").applied
