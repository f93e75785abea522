"""The host a rerun runs on, and how it compares with an entry's declared hardware. Pure but
for this_host, which reads this machine's /proc and /sys."""

from runner.host import compare_hosts, this_host

HOST = {"cpu_model": "AMD EPYC", "cores": 8, "memory_gb": 16.0, "drive_kind": "ssd"}


def test_this_host_is_read_from_proc_and_sys():
    host = this_host()
    assert host["cores"] >= 1
    assert host["memory_gb"] > 0
    assert host["cpu_model"]
    assert host["drive_kind"] in ("hdd", "ssd", "nvme", "virtual", "unknown")


def test_a_host_like_the_entrys_is_comparable():
    declared = {"cores": 8, "memory_gb": 64, "drive_kind": "ssd"}
    compared = compare_hosts(host=HOST, declared=declared, scale=4)
    assert compared.comparable
    assert compared.sentence == "Host comparable (AMD EPYC, 8 cores, 16 GB, ssd drive)"


def test_each_difference_is_named():
    declared = {"cores": 2, "memory_gb": 256, "drive_kind": "hdd"}
    compared = compare_hosts(host=HOST, declared=declared, scale=4)
    assert not compared.comparable
    assert "ssd drive, the entry hdd" in compared.sentence
    assert "8 cores, the entry 2" in compared.sentence
    assert "16 GB memory, less than the entry's 256 GB / 4" in compared.sentence


def test_a_target_overrides_what_it_says_about_its_host():
    from runner.host import target_host

    host = target_host({"drive_kind": "hdd", "cpu_model": ""})
    assert host["drive_kind"] == "hdd"
    assert host["cpu_model"] == this_host()["cpu_model"]  # an empty override is no override
