"""The memory cgroup's file protocol on either hierarchy (issue 33 §2: "cgroup v1 or v2, whichever
the host has"). This host mounts v1, where the real tests run their servers
(test_postgresql_cliff.py, test_page_cache_engine_cliff.py); the kernel's v2 cannot be mounted
beside it with the memory controller, so v2's files are checked here on a hierarchy laid out
as the kernel lays it out: which files the worker writes to make and cap a cgroup, and which it
reads back. What the kernel then does with them is not tested here."""

from pathlib import Path

from runner import cgroups

MIB = 1 << 20


def own(root: Path, controller: str) -> Path:
    """The worker's own cgroup in a hierarchy rooted at `root`, made as the kernel shows it."""
    parent = root / cgroups.own_cgroup_path(controller).lstrip("/")
    parent.mkdir(parents=True, exist_ok=True)
    return parent


def test_on_cgroup_v2_the_limit_is_memory_max_and_the_controller_handed_down(tmp_path):
    (tmp_path / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    parent = own(tmp_path, "")

    cgroup, why = cgroups.memory_cgroup("rerun-7", 48 * MIB, root=tmp_path)

    assert why == "" and cgroup is not None and cgroup.version == 2
    assert cgroup.path == parent / "rerun-7"
    assert (parent / "cgroup.subtree_control").read_text() == "+memory"
    assert (cgroup.path / "memory.max").read_text() == str(48 * MIB)
    assert (cgroup.path / "memory.swap.max").read_text() == "0"
    assert cgroup.limit_read_back() == 48 * MIB
    # v2 counts files' pages as `file`, shared memory (PostgreSQL's shared_buffers) among them.
    (cgroup.path / "memory.stat").write_text("anon 9000000\nfile 30000000\nshmem 6000000\n")
    assert cgroup.page_cache() == 24_000_000
    assert cgroup.describe() == f"cgroup v2 {cgroup.path} memory limit 48 MB"


def test_on_cgroup_v1_the_limit_is_limit_in_bytes_in_the_memory_hierarchy(tmp_path):
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "memory.limit_in_bytes").write_text("9223372036854771712\n")
    parent = own(memory, "memory")

    cgroup, why = cgroups.memory_cgroup("rerun-7", 64 * MIB, root=tmp_path)

    assert why == "" and cgroup is not None and cgroup.version == 1
    assert cgroup.path == parent / "rerun-7"
    assert (cgroup.path / "memory.limit_in_bytes").read_text() == str(64 * MIB)
    assert cgroup.limit_read_back() == 64 * MIB
    (cgroup.path / "memory.stat").write_text("cache 30000000\nrss 9000000\nshmem 6000000\n")
    assert cgroup.page_cache() == 24_000_000


def test_a_v2_hierarchy_without_the_memory_controller_is_no_cgroup(tmp_path):
    (tmp_path / "cgroup.controllers").write_text("cpu io pids\n")

    cgroup, why = cgroups.memory_cgroup("rerun-7", 48 * MIB, root=tmp_path)

    assert cgroup is None
    assert why == f"no cgroup memory controller is mounted at {tmp_path}"


def test_a_cgroup_that_cannot_be_made_says_where_and_why(tmp_path):
    (tmp_path / "cgroup.controllers").write_text("memory\n")
    parent = own(tmp_path, "")
    (parent / "rerun-7").write_text("")  # a file in the way of the directory

    cgroup, why = cgroups.memory_cgroup("rerun-7", 48 * MIB, root=tmp_path)

    assert cgroup is None
    assert why == f"cannot make a cgroup at {parent / 'rerun-7'}: File exists"
