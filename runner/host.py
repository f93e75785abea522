"""The host a rerun runs on: read from /proc and /sys when the worker starts, overridable per
target in settings, and compared with the hardware an entry declared."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
SYS_BLOCK = Path("/sys/block")
# Virtual and RAM-backed devices say nothing about the drive the data lives on.
_NOT_DRIVES = ("loop", "ram", "zram", "dm-", "md", "sr", "fd", "nbd")


@functools.cache
def this_host() -> dict:
    """CPU model, cores, memory (GB) and drive kind of the machine this process runs on."""
    return {
        "cpu_model": _cpu_model(),
        "cores": os.cpu_count() or 1,
        "memory_gb": _memory_gb(),
        "drive_kind": _drive_kind(),
    }


def target_host(overrides: dict) -> dict:
    return {**this_host(), **{key: value for key, value in overrides.items() if value}}


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
    """nvme, ssd or hdd: the first real block device's (queue/rotational says spinning)."""
    try:
        devices = sorted(SYS_BLOCK.iterdir())
    except OSError:
        return "unknown"
    for device in devices:
        if device.name.startswith(_NOT_DRIVES):
            continue
        if device.name.startswith("nvme"):
            return "nvme"
        try:
            rotational = (device / "queue" / "rotational").read_text().strip()
        except OSError:
            continue
        return "hdd" if rotational == "1" else "ssd"
    return "unknown"


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
        return CpuTimes(steal=steal, total=sum(ticks[:8]))
    return None


def steal_cores(before: CpuTimes | None, after: CpuTimes | None, *, cores: int) -> float | None:
    """The cores' worth of CPU the hypervisor stole between two samples: the share of all the
    CPU time that passed which was stolen, times the cores. None when a sample is missing."""
    if before is None or after is None or after.total <= before.total:
        return None
    return cores * (after.steal - before.steal) / (after.total - before.total)


def read_cpu_times() -> CpuTimes | None:
    try:
        return cpu_times((PROC / "stat").read_text())
    except OSError:
        return None
