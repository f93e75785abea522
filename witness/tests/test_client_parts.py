"""The witness client's own parts, without a registry: what it reads of the machine, how its
outbox numbers and spools batches, that it stays Python 3.8 and standard library only."""

from __future__ import annotations

import ast
import json
import os
import sys
from pathlib import Path

import pytest

CLIENT = Path(__file__).resolve().parents[1] / "iibench_witness.py"
sys.path.insert(0, str(CLIENT.parent))
import iibench_witness as witness  # noqa: E402

CPUINFO_TWO_SOCKETS = "\n\n".join(
    f"processor\t: {n}\nmodel name\t: Intel(R) Xeon(R) CPU X5460 @ 3.16GHz\n"
    f"physical id\t: {n // 8}\ncore id\t\t: {(n % 8) // 2}\n"
    for n in range(16)
)


def test_it_parses_as_python_3_8():
    ast.parse(CLIENT.read_text(), feature_version=(3, 8))


def test_it_imports_nothing_outside_the_standard_library():
    tree = ast.parse(CLIENT.read_text())
    top_level = {
        (node.names[0].name if isinstance(node, ast.Import) else node.module).split(".")[0]
        for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom)
    }
    assert top_level <= set(sys.stdlib_module_names) | {"__future__"}


def test_it_counts_sockets_physical_cores_and_logical_cpus():
    facts = witness.cpu_facts(CPUINFO_TWO_SOCKETS)
    assert facts == {
        "cpu_model": "Intel(R) Xeon(R) CPU X5460 @ 3.16GHz",
        "sockets": 2,
        "cores": 8,
        "logical_cpus": 16,
    }


def test_it_reads_total_memory():
    assert witness.memory_bytes("MemTotal:       16384000 kB\nMemFree: 1 kB\n") == 16384000 * 1024


def test_it_names_the_drive_and_filesystem_under_the_datadir(tmp_path):
    facts = witness.datadir_facts(str(tmp_path))
    assert facts["path"] == str(tmp_path.resolve())
    assert facts["filesystem"]
    if "device" in facts:  # a real block device: its kind comes from /sys
        assert facts["kind"] in ("hdd", "ssd", "nvme", "virtual")
        assert isinstance(facts["rotational"], bool)
        # A VM's virtio disk is a virtual volume, whatever its rotational flag says (issue 42).
        assert (facts["kind"] == "virtual") == facts["disk"].startswith(("vd", "xvd", "rbd", "nbd"))


def test_it_reads_sqlite_and_says_when_a_driver_is_missing(tmp_path, monkeypatch):
    facts = witness.db_facts(f"sqlite:///{tmp_path / 'x.db'}")
    assert facts["scheme"] == "sqlite" and facts["version"]
    monkeypatch.setitem(sys.modules, "pymysql", None)
    monkeypatch.setitem(sys.modules, "MySQLdb", None)
    facts = witness.db_facts("mysql://root@127.0.0.1:1/x")
    assert "no client library importable" in facts["note"]


def test_interval_counters_measure_cpu_time_since_the_last_call():
    counters = witness.IntervalCounters(disk=None)
    sum(range(2_000_000))
    sample = counters.interval()
    assert set(sample["cpu"]) == {"user", "system", "iowait", "idle"}
    assert sample["seconds"] > 0


def test_the_outbox_spools_to_disk_past_its_bound_and_keeps_the_order(tmp_path):
    outbox = witness.Outbox(str(tmp_path), memory_bound=1000)
    for n in range(10):
        outbox.add([f"line {n} " + "x" * 300], {})
    assert outbox.on_disk > 0
    assert len(os.listdir(tmp_path)) == outbox.on_disk
    seen = []
    while (batch := outbox.oldest()) is not None:
        seen.append((batch["seq"], batch["lines"][0].split()[:2]))
        outbox.acknowledged(batch["seq"] + 1)
    assert seen == [(n, ["line", str(n)]) for n in range(10)]
    assert os.listdir(tmp_path) == []


def test_a_batch_never_changes_once_numbered(tmp_path):
    outbox = witness.Outbox(str(tmp_path), memory_bound=0)
    outbox.add(["a", "b"], {"cpu": {}})
    first = outbox.oldest()
    assert first == outbox.oldest() == {"seq": 0, "lines": ["a", "b"], "machine": {"cpu": {}}}
    assert json.loads((tmp_path / "batch-000000000.json").read_text()) == first


def test_it_refuses_to_start_without_a_command():
    with pytest.raises(SystemExit):
        witness.parse_arguments(["--registry", "http://x", "--token", "t", "--contest", "c"])


def test_exit_status_of_a_signalled_command_is_128_plus_the_signal():
    assert witness.exit_status_of(-2) == 130
    assert witness.exit_status_of(3) == 3
