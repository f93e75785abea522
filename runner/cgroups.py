"""A memory limit from the operating system for one private server: a cgroup (v2, or v1's
memory controller) made below the cgroup the worker runs in, so the limits nest, joined by the
server's process before it drops to its unprivileged user, and removed with the server.

Where no cgroup can be made (not mounted, not writable: a worker that is not root, a container
without delegation) `memory_cgroup` returns None with the reason, for the rerun's log."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")


class MemoryCgroup:
    def __init__(self, path: Path, version: int, limit: int):
        self.path = path
        self.version = version
        self.limit = limit

    def join(self) -> None:
        """Move the calling process into this cgroup (its children follow): called in the
        server's child process while it is still root, before it takes the server's user."""
        (self.path / "cgroup.procs").write_text("0")

    def limit_read_back(self) -> int:
        name = "memory.max" if self.version == 2 else "memory.limit_in_bytes"
        text = (self.path / name).read_text().strip()
        return int(text) if text.isdigit() else 0

    def remove(self, timeout: float = 5) -> bool:
        """rmdir once its processes are gone (the kernel refuses while any is in it)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.path.rmdir()
                return True
            except FileNotFoundError:
                return True
            except OSError:
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.05)

    def page_cache(self) -> int:
        """Bytes of files' page cache charged to this cgroup now: the data files' pages the
        server read and wrote, which the limit bounds (v1's `cache`, v2's `file`, each less
        `shmem`, which they count too: PostgreSQL's shared_buffers)."""
        stat = {}
        for line in (self.path / "memory.stat").read_text().splitlines():
            name, _, value = line.partition(" ")
            stat[name] = int(value) if value.isdigit() else 0
        cached = stat.get("file" if self.version == 2 else "cache", 0)
        return max(0, cached - stat.get("shmem", 0))

    def describe(self) -> str:
        return f"cgroup v{self.version} {self.path} memory limit {self.limit >> 20} MB"


def own_cgroup_path(controller: str) -> str:
    """The worker's own cgroup in a hierarchy ('' for v2's unified one), from /proc."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return path
    return "/"


def memory_cgroup(
    name: str, limit: int, root: Path | None = None
) -> tuple[MemoryCgroup | None, str]:
    """A new cgroup `name` capped at `limit` bytes (no swap beyond it where the kernel
    accounts swap), or None and why not. `root`: where the cgroup hierarchies are mounted
    (settings.RERUN_CGROUP_ROOT; CGROUP_ROOT by default)."""
    if limit <= 0:
        return None, "no memory budget was computed"
    root = CGROUP_ROOT if root is None else Path(root)
    unified = root / "cgroup.controllers"
    if unified.exists() and "memory" in unified.read_text().split():
        parent = root / own_cgroup_path("").lstrip("/")
        return _make(parent / name, 2, limit)
    memory = root / "memory"
    if (memory / "memory.limit_in_bytes").exists():
        parent = memory / own_cgroup_path("memory").lstrip("/")
        return _make(parent / name, 1, limit)
    return None, f"no cgroup memory controller is mounted at {root}"


def _make(path: Path, version: int, limit: int) -> tuple[MemoryCgroup | None, str]:
    try:
        if version == 2:
            # The parent must hand the memory controller down to its children.
            with contextlib.suppress(OSError):
                (path.parent / "cgroup.subtree_control").write_text("+memory")
        # A resumed rerun's server takes its directory's name again: the killed worker's
        # cgroup, empty since its server died with it, goes first.
        with contextlib.suppress(OSError):
            path.rmdir()
        path.mkdir()
    except OSError as error:
        return None, f"cannot make a cgroup at {path}: {error.strerror}"
    try:
        if version == 2:
            (path / "memory.max").write_text(str(limit))
            with contextlib.suppress(OSError):
                (path / "memory.swap.max").write_text("0")
        else:
            (path / "memory.limit_in_bytes").write_text(str(limit))
            with contextlib.suppress(OSError):  # only where the kernel accounts swap
                (path / "memory.memsw.limit_in_bytes").write_text(str(limit))
    except OSError as error:
        with contextlib.suppress(OSError):
            path.rmdir()
        return None, f"cannot set the memory limit of {path}: {error.strerror}"
    return MemoryCgroup(path, version, limit), ""


def cgroup_of(pid: int) -> str:
    """The memory cgroup a process is in, as /proc says (v1's memory line, else v2's)."""
    paths = {}
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") or [""]:
            paths[controller] = path
    return paths.get("memory", paths.get("", ""))
