"""What the host was doing while a verification ran, beside the benchmark and its server: the
cores other work kept busy (steal counted, as the judge counts it) and the disk I/O of other
processes, in one line the organizer reads beside the verdict (issue 45).

The disk I/O is the machine's (the physical disks of /proc/diskstats) less the private server's
own (/proc/PID/io of the server and its children: PostgreSQL's backends are children of the
postmaster, MariaDB's are threads), measured around each repeat by the worker and written into
its log as a `# rerun other io` line, as the steal time is. The benchmark client's own disk I/O
is not taken out: against a server it writes nothing to disk, and on the SQLite target (no
server) all of the run's I/O is the client's, so there it is not separated and not said."""

from __future__ import annotations

import re
from pathlib import Path

OTHER_IO_LINE = "# rerun other io bytes="
_OTHER_IO = re.compile(r"^# rerun other io bytes=(\d+) seconds=([0-9.]+)", re.MULTILINE)
SECTOR = 512  # /proc/diskstats counts 512-byte sectors whatever the device's own sector size


def disk_bytes(diskstats: str, disks: set[str]) -> int:
    """Bytes read and written on `disks` (whole devices, not their partitions, which
    /proc/diskstats lists too and would count twice), from /proc/diskstats' text."""
    total = 0
    for line in diskstats.splitlines():
        fields = line.split()
        if len(fields) < 10 or fields[2] not in disks:
            continue
        total += (int(fields[5]) + int(fields[9])) * SECTOR
    return total


def physical_disks(sys_block: Path = Path("/sys/block")) -> set[str]:
    """The block devices backed by a device (not loop, zram or device-mapper volumes, whose I/O
    lands on a physical disk already counted)."""
    try:
        return {entry.name for entry in sys_block.iterdir() if (entry / "device").exists()}
    except OSError:
        return set()


def read_disk_bytes(proc: Path = Path("/proc")) -> int | None:
    try:
        return disk_bytes((proc / "diskstats").read_text(), physical_disks())
    except (OSError, ValueError):
        return None


def io_bytes(io_text: str) -> int:
    """A process's bytes read from and written to storage, from /proc/PID/io."""
    found = dict(line.split(":", 1) for line in io_text.splitlines() if ":" in line)
    return int(found.get("read_bytes", 0)) + int(found.get("write_bytes", 0))


def children_of(pid: int, proc: Path = Path("/proc")) -> list[int]:
    """The live processes whose parent is `pid` (read from each /proc/PID/stat)."""
    children = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command name may hold spaces and parentheses: the fields follow its last ')'.
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 1 and fields[1] == str(pid):
            children.append(int(entry.name))
    return children


def server_io_bytes(pid: int | None, proc: Path = Path("/proc")) -> int | None:
    """The storage I/O of a server process and its live children; None without a pid or when
    the server's own counters cannot be read (another user's process, without root)."""
    if pid is None:
        return None
    total = 0
    for each in [pid, *children_of(pid, proc)]:
        try:
            total += io_bytes((proc / str(each) / "io").read_text())
        except OSError:
            if each == pid:
                return None
    return total


def other_io_line(other_bytes: int, seconds: float, own_bytes: int | None = None) -> str:
    own = "" if own_bytes is None else f" own={max(own_bytes, 0)}"
    return (
        f"{OTHER_IO_LINE}{max(other_bytes, 0)} seconds={seconds:.3f}{own} (disk I/O of processes "
        "other than the private server; own: the private server's)\n"
    )


def stated_other_io(text: str) -> list[float]:
    """Each `# rerun other io` line of a log, as bytes a second."""
    return [
        int(size) / float(seconds) for size, seconds in _OTHER_IO.findall(text) if float(seconds)
    ]


def thread_times(pids: list[int], proc: Path = Path("/proc")) -> dict[str, tuple[int, int]]:
    """Each thread's time on a CPU and time waiting for one while runnable (nanoseconds: the
    first two fields of /proc/PID/task/TID/schedstat), by "pid/tid", for the processes `pids`
    and their threads. Other work that takes a core the benchmark wants shows in the waits,
    and nothing else does."""
    times = {}
    for pid in pids:
        try:
            tasks = list((proc / str(pid) / "task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                fields = (task / "schedstat").read_text().split()
            except OSError:
                continue
            if len(fields) > 1 and fields[0].isdigit() and fields[1].isdigit():
                times[f"{pid}/{task.name}"] = (int(fields[0]), int(fields[1]))
    return times


def thread_waits(pids: list[int], proc: Path = Path("/proc")) -> dict[str, int]:
    """Each thread's time waiting for a CPU while runnable (`thread_times`), for `longest_wait`."""
    return {key: waited for key, (_, waited) in thread_times(pids, proc).items()}


def busiest_cpu(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> float:
    """Seconds on a CPU of the thread that ran most between the two readings (a thread new
    since counts from zero): a server's connection thread, on a one-writer benchmark."""
    ran = [after[key][0] - before.get(key, (0, 0))[0] for key in after]
    return max(ran, default=0) / 1e9


def longest_wait(before: dict[str, int], after: dict[str, int]) -> float | None:
    """Seconds the thread that waited most between the two readings waited for a CPU (a
    thread new since counts from zero): the benchmark's critical path runs on one thread of
    the server at a time, so the longest wait is what other work cost it, near enough."""
    if not after:
        return None
    return max(after[key] - before.get(key, 0) for key in after) / 1e9


def while_it_ran(
    busy: list[float | None],
    steal: list[float | None],
    io: list[float],
    waits: list[float | None] | None = None,
) -> str:
    """The one line: the most other work, steal and other I/O beside any repeat, and the most
    the server waited for a CPU; "" when the worker measured none of them."""
    said = []
    known = [each for each in busy if each is not None]
    if known:
        most = max(max(known), 0.0)
        stolen = max((each for each in steal if each is not None), default=None)
        within = "" if stolen is None else f", {stolen:.2f} of them stolen by the hypervisor"
        said.append(f"other work kept at most {most:.2f} cores busy{within}")
    if io:
        said.append(f"other processes' disk I/O at most {max(io) / 1e6:.1f} MB/s")
    waited = [each for each in waits or [] if each is not None]
    if waited:
        said.append(f"the server waited for a CPU at most {max(waited):.1%} of a run")
    if not said:
        return ""
    return f"While it ran, beside the benchmark and its server: {'; '.join(said)}."
