"""The host a rerun runs on: read from /proc and /sys when the worker starts, overridable per
target in settings, and compared with the hardware an entry declared."""

from __future__ import annotations

import functools
import os
import re
import subprocess  # the configured server binaries, asked their version  # nosec B404
from dataclasses import dataclass
from pathlib import Path

from submissions.contests.machine import VIRTUAL_DEVICES

PROC = Path("/proc")
SYS_BLOCK = Path("/sys/block")
# Virtual and RAM-backed devices say nothing about the drive the data lives on.
_NOT_DRIVES = ("loop", "ram", "zram", "dm-", "md", "sr", "fd", "nbd")


@functools.cache
def host_name(worker: str) -> str:
    """The machine part of a Celery hostname: NAME of worker@NAME (the one parser of it)."""
    return worker.rsplit("@", 1)[-1]


def host_of(run) -> str:
    """The host a run (a VerificationRun) ran on: its worker's machine (celery@HOST), else its
    target's name."""
    return host_name(run.worker) if run.worker else run.target


def this_host() -> dict:
    """CPU model, cores, memory (GB) and drive kind of the machine this process runs on."""
    return {
        "cpu_model": _cpu_model(),
        "cores": os.cpu_count() or 1,
        "memory_gb": _memory_gb(),
        "drive_kind": _drive_kind(),
        "drive_model": _drive_model(),
    }


def target_host(overrides: dict, base: dict | None = None) -> dict:
    """The host (this one unless `base` is given) with a target's non-empty overrides on it."""
    return {**(this_host() if base is None else base), **{k: v for k, v in overrides.items() if v}}


def _cpu_model() -> str:
    try:
        for line in (PROC / "cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def _memory_gb() -> float:
    try:
        for line in (PROC / "meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / (1 << 20), 1)
    except (OSError, ValueError, IndexError):
        pass
    return 0.0


def free_memory() -> int:
    """Bytes the host can give without swapping now (MemAvailable); 0 when unknown."""
    try:
        for line in (PROC / "meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _drive_kind() -> str:
    """nvme, ssd or hdd: the first real block device's (queue/rotational says spinning); virtual
    for a VM's or cloud's volume, as the registry calls it (contests.machine.VIRTUAL_DEVICES:
    its rotational flag is the hypervisor's), so an entry declared on one compares with it."""
    for device in _real_drives():
        if device.name.startswith(VIRTUAL_DEVICES):
            return "virtual"
        if device.name.startswith("nvme"):
            return "nvme"
        try:
            rotational = (device / "queue" / "rotational").read_text().strip()
        except OSError:
            continue
        return "hdd" if rotational == "1" else "ssd"
    return "unknown"


def _real_drives() -> list[Path]:
    try:
        devices = sorted(SYS_BLOCK.iterdir())
    except OSError:
        return []
    return [device for device in devices if not device.name.startswith(_NOT_DRIVES)]


def _drive_model() -> str:
    """The first real block device's model as the kernel names it ("" when it names none,
    as virtio disks do)."""
    for device in _real_drives():
        try:
            model = (device / "device" / "model").read_text().strip()
        except OSError:
            continue
        if model:
            return model
    return ""


# The version a server binary prints: "mariadbd  Ver 10.11.6-MariaDB ...", "mysqld  Ver 8.0.36
# for Linux", "postgres (PostgreSQL) 15.5 (Debian ...)".
_VERSION = re.compile(r"(?:Ver |\) )(\d+\.\d+(?:\.\d+)?)")


@functools.cache
def server_version(kind: str, binary: str) -> dict:
    """What the server binary of `kind` ("mariadb", "postgresql") says it is: its product and
    version, or why it could not be asked (the host then cannot start that server). Asked once
    per process, like this_host(): a worker is restarted when its servers are upgraded."""
    try:
        said = subprocess.run(  # noqa: S603 - an organizer's configured binary  # nosec B603
            [binary, "--version"], capture_output=True, text=True, timeout=15, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError) as error:
        return {"binary": binary, "error": f"{binary} --version failed: {error}"}
    found = _VERSION.search(said)
    if not found:
        return {"binary": binary, "error": f"{binary} --version printed no version: {said[:200]!r}"}
    if kind == "postgresql":
        product = "PostgreSQL"
    else:
        product = "MariaDB" if "mariadb" in said.lower() else "MySQL"
    return {"binary": binary, "product": product, "version": found.group(1)}


# --- comparison, pure ------------------------------------------------------------------------

# Within this factor of the declared cores the hosts are alike enough for absolute rates.
CORES_FACTOR = 2.0


@dataclass(frozen=True)
class HostComparison:
    comparable: bool
    sentence: str  # what the verdict message says about the host


def compare_hosts(*, host: dict, declared: dict, scale: int) -> HostComparison:
    """Whether absolute rates may be compared: the same kind of drive, cores within a factor
    of two, and at least the declared memory divided by the scale."""
    differences = []
    drive, declared_drive = str(host.get("drive_kind", "")), str(declared.get("drive_kind", ""))
    if drive != declared_drive:
        differences.append(f"{drive or 'unknown'} drive, the entry {declared_drive or 'unknown'}")
    cores, declared_cores = int(host.get("cores") or 0), int(declared.get("cores") or 0)
    if not declared_cores or not (
        declared_cores / CORES_FACTOR <= cores <= declared_cores * CORES_FACTOR
    ):
        differences.append(f"{cores} cores, the entry {declared_cores}")
    memory, declared_memory = (
        float(host.get("memory_gb") or 0),
        float(declared.get("memory_gb") or 0),
    )
    if memory < declared_memory / max(1, scale):
        differences.append(
            f"{memory:g} GB memory, less than the entry's {declared_memory:g} GB / {scale}"
        )
    described = (
        f"{host.get('cpu_model', 'unknown CPU')}, {cores} cores, {memory:g} GB, "
        f"{drive or 'unknown'} drive"
    )
    if differences:
        return HostComparison(False, f"Host not comparable ({described}: {'; '.join(differences)})")
    return HostComparison(True, f"Host comparable ({described})")


# --- steal time ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CpuTimes:
    """The machine's CPU time from /proc/stat's first line, in clock ticks: `steal` is the time
    the hypervisor ran other guests while this one wanted the CPU (the benchmark's machine CPU
    leaves it out, as it leaves out idle and iowait)."""

    steal: int
    total: int
    # idle and iowait: the time no process of any kind ran (busy_cores counts the rest).
    idle: int = 0


def cpu_times(stat_text: str) -> CpuTimes | None:
    """/proc/stat's `cpu` line read; None when it is not there or not numbers. Its fields: user,
    nice, system, idle, iowait, irq, softirq, steal, guest, guest_nice (guest time is counted in
    user already, so not again in the total)."""
    for line in stat_text.splitlines():
        fields = line.split()
        if not fields or fields[0] != "cpu":
            continue
        try:
            ticks = [int(value) for value in fields[1:]]
        except ValueError:
            return None
        if len(ticks) < 4:
            return None
        steal = ticks[7] if len(ticks) > 7 else 0
        idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)
        return CpuTimes(steal=steal, total=sum(ticks[:8]), idle=idle)
    return None


def steal_cores(before: CpuTimes | None, after: CpuTimes | None, *, cores: int) -> float | None:
    """The cores' worth of CPU the hypervisor stole between two samples: the share of all the
    CPU time that passed which was stolen, times the cores. None when a sample is missing."""
    if before is None or after is None or after.total <= before.total:
        return None
    return cores * (after.steal - before.steal) / (after.total - before.total)


def busy_cores(before: CpuTimes | None, after: CpuTimes | None, *, cores: int) -> float | None:
    """The cores' worth of CPU that anything ran between two samples, steal counted as busy (a
    neighbour's time is time the host could not give a run): the share of all the CPU time that
    passed which was neither idle nor waiting on I/O, times the cores. None when a sample is
    missing."""
    if before is None or after is None or after.total <= before.total:
        return None
    busy = (after.total - after.idle) - (before.total - before.idle)
    return cores * busy / (after.total - before.total)


def read_cpu_times() -> CpuTimes | None:
    try:
        return cpu_times((PROC / "stat").read_text())
    except OSError:
        return None


def declared_product(*, family: str, version: str) -> str:
    """The server product an entry declared (`family` as declared: mysql, mariadb, percona,
    postgresql...); Percona Server follows MySQL's release lines."""
    if family == "postgresql":
        return "PostgreSQL"
    if family == "mariadb" or "mariadb" in version.lower():
        return "MariaDB"
    if family in ("mysql", "percona"):
        return "MySQL"
    return family


def major_version(product: str, version: str) -> str:
    """The release line: 15 of PostgreSQL 15.5 (9.6 before 10), 10.11 of MariaDB 10.11.6."""
    numbers = re.findall(r"\d+", version)[:2]
    if not numbers:
        return ""
    if product == "PostgreSQL" and int(numbers[0]) >= 10:
        return numbers[0]
    return ".".join(numbers)


def compare_server(*, servers: dict, kind: str, family: str, version: str) -> HostComparison:
    """Whether the host can start the target's server (`kind`; "" needs none) and runs the
    release line the entry declared. Versions of different products (a MySQL entry, a MariaDB
    server) are not compared: said so, not held against the host."""
    if not kind:
        return HostComparison(True, "")
    found = servers.get(kind) or {}
    if not found.get("version"):
        why = found.get("error") or f"no {kind} server binary reported"
        return HostComparison(False, f"cannot start {kind}: {why}")
    product, running = found.get("product", kind), found["version"]
    entry_product = declared_product(family=family, version=version)
    if not version.strip():
        return HostComparison(True, f"{product} {running} (the entry states no version)")
    if entry_product != product:
        return HostComparison(
            True,
            f"{product} {running}; the entry ran {entry_product} {version}: versions of "
            "different products, not compared",
        )
    if major_version(product, running) != major_version(entry_product, version):
        return HostComparison(
            False, f"{product} {running}, the entry {entry_product} {version}: another release line"
        )
    return HostComparison(True, f"{product} {running}, the entry's release line")
