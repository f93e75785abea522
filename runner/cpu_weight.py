"""A CPU (and, where the disk's scheduler honours one, I/O) weight above other work for one
verification: its private servers and its benchmark in a cgroup of their own, made below the
worker's, so that on a host with other work they get the larger share of a contested core
(cgroup v1's `cpu.shares`, v2's `cpu.weight`; v1's `blkio.bfq.weight`, v2's `io.weight`). A
weight takes nothing from an idle host: it only decides who waits when both want a core.

Where neither hierarchy lets the worker make one (not mounted, not writable), `cpu_weight_group`
returns None with the reason, which the rerun's log states."""

from __future__ import annotations

import contextlib
from pathlib import Path

from runner.cgroups import CGROUP_ROOT, own_cgroup_path

# Eight times the default weight (v1 1,024 and v2 100): beside one process of other work a
# verification's process gets 8/9 of a core they both want.
SHARES_V1 = 8192
WEIGHT_V2 = 800
IO_WEIGHT = 800  # v1 BFQ and v2 io.weight: 1-1000, 100 by default


class CpuWeightGroup:
    def __init__(self, paths: list[Path], version: int, said: str):
        self.paths = paths  # v1: one folder per controller (cpu, blkio); v2: one
        self.version = version
        self.said = said

    def add(self, pid: int | None) -> None:
        """Move a process (all its threads; its later children follow) into the group. A
        process gone already is no error."""
        if pid is None:
            return
        for path in self.paths:
            with contextlib.suppress(OSError):
                (path / "cgroup.procs").write_text(str(pid))

    def leave(self, pid: int) -> None:
        """Move a process back to the group's parent (the worker's own cgroup)."""
        for path in self.paths:
            with contextlib.suppress(OSError):
                (path.parent / "cgroup.procs").write_text(str(pid))

    def add_all(self, pids: list[int]) -> None:
        for pid in pids:
            self.add(pid)

    def remove(self) -> None:
        """rmdir each folder; the kernel refuses while a process is in it, and an emptied
        group goes at the next rerun's start (`cpu_weight_group` removes a leftover of its name)."""
        for path in self.paths:
            with contextlib.suppress(OSError):
                path.rmdir()

    def describe(self) -> str:
        return self.said


def cpu_weight_group(name: str, root: Path | None = None) -> tuple[CpuWeightGroup | None, str]:
    """A new cgroup `name` with a CPU weight above the default, and an I/O weight where the
    kernel offers one; or None and why not."""
    root = CGROUP_ROOT if root is None else Path(root)
    unified = root / "cgroup.controllers"
    if unified.exists() and "cpu" in unified.read_text().split():
        return _v2(root / own_cgroup_path("").lstrip("/") / name)
    cpu = root / "cpu"
    if (cpu / "cpu.shares").exists():
        return _v1(cpu / own_cgroup_path("cpu").lstrip("/") / name, root / "blkio")
    return None, f"no cgroup CPU controller is mounted at {root}"


def _fresh(path: Path) -> str:
    with contextlib.suppress(OSError):
        path.rmdir()  # a killed worker's leftover of the same name, empty since
    try:
        path.mkdir()
    except OSError as error:
        return f"cannot make a cgroup at {path}: {error.strerror}"
    return ""


def _v1(cpu: Path, blkio_root: Path) -> tuple[CpuWeightGroup | None, str]:
    failed = _fresh(cpu)
    if failed:
        return None, failed
    try:
        (cpu / "cpu.shares").write_text(str(SHARES_V1))
    except OSError as error:
        cpu.rmdir()
        return None, f"cannot set cpu.shares of {cpu}: {error.strerror}"
    paths, io = [cpu], "no I/O weight (the disk's scheduler takes none: BFQ is not in use)"
    blkio = blkio_root / own_cgroup_path("blkio").lstrip("/") / cpu.name
    if (blkio.parent / "blkio.bfq.weight").exists() and not _fresh(blkio):
        try:
            (blkio / "blkio.bfq.weight").write_text(str(IO_WEIGHT))
            paths.append(blkio)
            io = f"blkio.bfq.weight {IO_WEIGHT}"
        except OSError:
            blkio.rmdir()
    said = f"cgroup v1 {cpu}: cpu.shares {SHARES_V1} (1,024 by default), {io}"
    return CpuWeightGroup(paths, 1, said), ""


def _v2(path: Path) -> tuple[CpuWeightGroup | None, str]:
    for controller in ("+cpu", "+io"):  # the parent hands its controllers down
        with contextlib.suppress(OSError):
            (path.parent / "cgroup.subtree_control").write_text(controller)
    failed = _fresh(path)
    if failed:
        return None, failed
    try:
        (path / "cpu.weight").write_text(str(WEIGHT_V2))
    except OSError as error:
        path.rmdir()
        return None, f"cannot set cpu.weight of {path}: {error.strerror}"
    io = "no I/O weight (the io controller is not delegated here)"
    with contextlib.suppress(OSError):
        (path / "io.weight").write_text(f"default {IO_WEIGHT}")
        io = f"io.weight {IO_WEIGHT}"
    said = f"cgroup v2 {path}: cpu.weight {WEIGHT_V2} (100 by default), {io}"
    return CpuWeightGroup([path], 2, said), ""
