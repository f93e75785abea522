#!/usr/bin/env python3
"""iibench-witness: run any iiBench command and stream its output to the iiBench registry as it
happens, so the registry can vouch that the run took its own time ("streamed"; the machine facts
it sends are its own report, which the registry cannot observe).

    python3 iibench_witness.py --registry https://registry.example --token iiw_... \\
        --contest SLUG --declare setup.json --datadir /var/lib/mysql -- python3 iibench.py ...

The command runs unchanged: its output shows on the terminal as usual and is kept in a local
copy (--log). Every few seconds the new lines go to the registry as one numbered batch, with
the machine's CPU time and the data directory's drive counters over the interval. Through a
network loss or a registry restart (no answer, 502, 503, 504, 429) the batches wait (in memory,
then on disk past a bound) and are sent again with backoff, for up to --give-up-after seconds
(a day); the registry acknowledges a batch it already holds, so no line is lost or doubled. A
registry that answers a request with another server error (500) is tried
SERVER_ERROR_RETRIES times with backoff, then the stream stops and says why: resending the
same request will not change its answer. When the command exits its exit status seals the
run. Ctrl-C stops the command and the stream together, and says so.

Python 3.8+, standard library only, one file: it runs on the old machines databases live on.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

VERSION = "1.0"
# A batch stays well under the registry's limit (1 MiB by default) even with JSON escaping.
BATCH_MAX_BYTES = 256 * 1024
# Batches kept in memory while the registry cannot be reached; past this they go to disk.
MEMORY_BOUND_BYTES = 8 * 1024 * 1024
BACKOFF_FIRST_SECONDS = 1.0
BACKOFF_MAX_SECONDS = 60.0
# A request the registry answered with a server error (500, 501, 505...) is tried this many
# times in all: its answer is about the request, which a resend does not change.
SERVER_ERROR_RETRIES = 5
# No answer at all (or 502, 503, 504, 429: the registry away or busy): tried this long.
GIVE_UP_AFTER_SECONDS = 24 * 3600.0
# The answers that say the registry is away or busy, not that this request failed.
AWAY_STATUSES = (429, 502, 503, 504)
STOP_GRACE_SECONDS = 10.0


class Refused(Exception):
    """The registry answered with a 4xx that retrying will not change."""

    def __init__(self, status: int, body: dict):
        super().__init__(body.get("detail") or json.dumps(body))
        self.status = status
        self.body = body


class Unreachable(Exception):
    """No answer, or one worth retrying (5xx, 429): try again later. `status`: the registry's
    answer, None when there was none."""

    def __init__(self, message: str, retry_after: float = 0.0, status: int | None = None):
        super().__init__(message)
        self.retry_after = retry_after
        self.status = status

    @property
    def server_error(self) -> bool:
        """The registry answered, and failed on this request (not: it is away or busy)."""
        return self.status is not None and self.status not in AWAY_STATUSES


class GaveUp(Exception):
    """Retrying stopped: the registry kept failing this request, or stayed away too long."""


# -- What the machine looks like ------------------------------------------------------------


def _read(path: str, default: str = "") -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return default


def os_facts() -> dict:
    release = dict(re.findall(r'^(\w+)="?([^"\n]*)"?$', _read("/etc/os-release"), re.M))
    return {
        "os": release.get("PRETTY_NAME") or platform.platform(),
        "system": platform.system(),
        "kernel": platform.release(),
        "architecture": platform.machine(),
    }


def cpu_facts(cpuinfo: str = "") -> dict:
    """CPU model, sockets, physical cores and logical CPUs, from /proc/cpuinfo."""
    cpuinfo = cpuinfo or _read("/proc/cpuinfo")
    model, sockets, cores, logical = "", set(), set(), 0
    for block in cpuinfo.split("\n\n"):
        fields = dict(
            (key.strip(), value.strip())
            for key, _, value in (line.partition(":") for line in block.splitlines())
        )
        if "processor" not in fields:
            continue
        logical += 1
        model = model or fields.get("model name") or fields.get("Model") or ""
        socket = fields.get("physical id", "0")
        sockets.add(socket)
        cores.add((socket, fields.get("core id", str(logical))))
    return {
        "cpu_model": model or platform.processor(),
        "sockets": len(sockets) or 1,
        "cores": len(cores) or os.cpu_count() or 1,
        "logical_cpus": logical or os.cpu_count() or 1,
    }


def memory_bytes(meminfo: str = "") -> int | None:
    match = re.search(r"^MemTotal:\s+(\d+) kB", meminfo or _read("/proc/meminfo"), re.M)
    return int(match.group(1)) * 1024 if match else None


def _mount_of(path: str, mountinfo: str) -> tuple[str, str]:
    """The mount point holding `path` and its filesystem type, from /proc/self/mountinfo."""
    best, fstype = "", ""
    for line in mountinfo.splitlines():
        left, _, right = line.partition(" - ")
        parts = left.split()
        if len(parts) < 5 or not right:
            continue
        point = parts[4].replace("\\040", " ")
        inside = path == point or path.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, fstype = point, right.split()[0]
    return best, fstype


def _disk_of(device_dir: str) -> str:
    """The whole disk under a block device: a partition's parent, a device mapper's first
    underlying device; '' when /sys does not say."""
    name = os.path.basename(device_dir)
    if os.path.exists(os.path.join(device_dir, "partition")):
        return os.path.basename(os.path.dirname(device_dir))
    slaves = os.path.join(device_dir, "slaves")
    if os.path.isdir(slaves) and os.listdir(slaves):
        below = os.path.realpath(os.path.join(slaves, sorted(os.listdir(slaves))[0]))
        return _disk_of(below)
    return name


def datadir_facts(datadir: str) -> dict:
    """The block device under the data directory: its name, model, whether it spins, size,
    the filesystem, and the drive kind the registry compares with the declaration."""
    path = os.path.realpath(datadir)
    facts = {"path": path}
    try:
        device = os.stat(path).st_dev
    except OSError as error:
        facts["note"] = f"cannot read {datadir}: {error.strerror}"
        return facts
    mount, fstype = _mount_of(path, _read("/proc/self/mountinfo"))
    facts.update(mount_point=mount, filesystem=fstype)
    sys_dir = f"/sys/dev/block/{os.major(device)}:{os.minor(device)}"
    if not os.path.exists(sys_dir):
        facts["note"] = f"no block device under {datadir} ({fstype or 'unknown'} filesystem)"
        return facts
    device_dir = os.path.realpath(sys_dir)
    disk = _disk_of(device_dir)
    block = f"/sys/block/{disk}"
    rotational = _read(f"{block}/queue/rotational").strip()
    sectors = _read(f"{block}/size").strip()
    facts.update(
        device=os.path.basename(device_dir),
        disk=disk,
        model=(_read(f"{block}/device/model") or _read(f"{block}/device/name")).strip(),
        rotational=rotational == "1" if rotational else None,
        size_bytes=int(sectors) * 512 if sectors.isdigit() else None,
    )
    if disk.startswith(("vd", "xvd", "rbd", "nbd")):
        # A VM's or cloud's volume: its rotational flag is the hypervisor's, not a drive's.
        facts["kind"] = "virtual"
    elif disk.startswith("nvme"):
        facts["kind"] = "nvme"
    elif rotational:
        facts["kind"] = "hdd" if rotational == "1" else "ssd"
    return facts


def db_facts(url: str) -> dict:
    """The database server's version and variables, through a client library if one can be
    imported; otherwise says which is missing."""
    scheme = urllib.parse.urlsplit(url).scheme.split("+")[0]
    try:
        if scheme == "sqlite":
            return _sqlite_facts(url)
        if scheme in ("mysql", "mariadb"):
            return _mysql_facts(url)
        if scheme in ("postgresql", "postgres"):
            return _postgresql_facts(url)
    except ImportError as error:
        return {"scheme": scheme, "note": f"no client library importable ({error}): not read"}
    except Exception as error:  # any driver's error: say it, keep the run going
        return {"scheme": scheme, "note": f"could not read the server: {error}"}
    return {"scheme": scheme, "note": f"unknown database scheme {scheme!r}: not read"}


def _sqlite_facts(url: str) -> dict:
    import sqlite3

    path = urllib.parse.urlsplit(url).path[1:] or ":memory:"
    connection = sqlite3.connect(path)
    try:
        names = ("journal_mode", "synchronous", "page_size", "cache_size")
        variables = {name: connection.execute(f"PRAGMA {name}").fetchone()[0] for name in names}
    finally:
        connection.close()
    return {"scheme": "sqlite", "version": sqlite3.sqlite_version, "variables": variables}


def _mysql_facts(url: str) -> dict:
    parts = urllib.parse.urlsplit(url)
    try:
        import pymysql as driver
    except ImportError:
        import MySQLdb as driver
    connection = driver.connect(
        host=parts.hostname or "localhost",
        port=parts.port or 3306,
        user=urllib.parse.unquote(parts.username or "root"),
        password=urllib.parse.unquote(parts.password or ""),
    )
    try:
        cursor = connection.cursor()
        cursor.execute("SHOW GLOBAL VARIABLES")
        variables = {str(name): str(value) for name, value in cursor.fetchall()}
    finally:
        connection.close()
    return {"scheme": "mysql", "version": variables.get("version", ""), "variables": variables}


def _postgresql_facts(url: str) -> dict:
    try:
        import psycopg as driver
    except ImportError:
        import psycopg2 as driver
    connection = driver.connect(url)
    try:
        cursor = connection.cursor()
        cursor.execute("SELECT name, setting FROM pg_settings")
        variables = {str(name): str(value) for name, value in cursor.fetchall()}
    finally:
        connection.close()
    return {
        "scheme": "postgresql",
        "version": variables.get("server_version", ""),
        "variables": variables,
    }


def machine_facts(datadir: str | None, db_url: str | None) -> dict:
    facts = {**os_facts(), **cpu_facts(), "memory_bytes": memory_bytes(), "witness": VERSION}
    facts["datadir"] = datadir_facts(datadir) if datadir else None
    facts["db"] = db_facts(db_url) if db_url else None
    return facts


class IntervalCounters:
    """Machine CPU time (user, system, iowait) and the data directory's drive counters (bytes
    and operations read and written) since the last call, from /proc."""

    def __init__(self, disk: str | None):
        self.disk = disk
        self.ticks = float(os.sysconf("SC_CLK_TCK")) if hasattr(os, "sysconf") else 100.0
        self.last = self._now()

    def _now(self) -> dict:
        now = {"at": time.monotonic()}
        fields = _read("/proc/stat").split("\n", 1)[0].split()
        if fields and fields[0] == "cpu":
            user, nice, system, idle, iowait, irq, softirq = (int(v) for v in fields[1:8])
            now.update(
                user=(user + nice) / self.ticks,
                system=(system + irq + softirq) / self.ticks,
                iowait=iowait / self.ticks,
                idle=idle / self.ticks,
            )
        for line in _read("/proc/diskstats").splitlines() if self.disk else ():
            parts = line.split()
            if len(parts) >= 10 and parts[2] == self.disk:
                now.update(
                    reads=int(parts[3]),
                    read_bytes=int(parts[5]) * 512,
                    writes=int(parts[7]),
                    write_bytes=int(parts[9]) * 512,
                )
        return now

    def interval(self) -> dict:
        now, last = self._now(), self.last
        self.last = now
        cpu = {
            k: round(now[k] - last[k], 2)
            for k in ("user", "system", "iowait", "idle")
            if k in now and k in last
        }
        sample = {"seconds": round(now["at"] - last["at"], 3), "cpu": cpu}
        if self.disk and "reads" in now and "reads" in last:
            sample["disk"] = {
                "device": self.disk,
                **{k: now[k] - last[k] for k in ("reads", "read_bytes", "writes", "write_bytes")},
            }
        return sample


# -- Talking to the registry -----------------------------------------------------------------


class Registry:
    def __init__(self, url: str, token: str, timeout: float = 30.0):
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def post(self, path: str, body: dict) -> dict:
        data = json.dumps(body).encode()
        request = urllib.request.Request(  # noqa: S310 - the registry's URL, http(s) only
            self.url + path,
            data=data,
            method="POST",
            headers={
                "Authorization": f"Bearer {self.token}",
                "Content-Type": "application/json",
                "Accept": "application/json",
                "User-Agent": f"iibench-witness/{VERSION}",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310  # nosec B310
                return json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            body = _json_or_text(error.read())
            if error.code == 429 or error.code >= 500:
                retry_after = _seconds(error.headers.get("Retry-After"))
                raise Unreachable(f"HTTP {error.code}", retry_after, error.code) from None
            raise Refused(error.code, body) from None
        except (urllib.error.URLError, OSError, ValueError) as error:
            raise Unreachable(str(getattr(error, "reason", error))) from None


def _seconds(header: str | None) -> float:
    """A Retry-After in seconds (an HTTP date, or nonsense, reads as none), at most an hour."""
    try:
        return min(max(float(header or 0), 0.0), 3600.0)
    except ValueError:
        return 0.0


def _json_or_text(raw: bytes) -> dict:
    try:
        body = json.loads(raw)
        return body if isinstance(body, dict) else {"detail": str(body)}
    except ValueError:
        return {"detail": raw.decode(errors="replace")[:500]}


class Backoff:
    """Waits between tries, doubling up to a minute, and says when to stop trying: after
    SERVER_ERROR_RETRIES server errors in a row, or `give_up_after` seconds without success."""

    def __init__(
        self,
        give_up_after: float = GIVE_UP_AFTER_SECONDS,
        server_error_retries: int = SERVER_ERROR_RETRIES,
        clock=time.monotonic,
    ):
        self.give_up_after = give_up_after
        self.server_error_retries = server_error_retries
        self.clock = clock
        self.reset()

    def wait(self, stop: threading.Event, error: Unreachable, what: str) -> None:
        """Wait before trying `what` again after `error`; GaveUp when trying again is no use."""
        self.tries += 1
        if self.failing_since is None:
            self.failing_since = self.clock()
        self.server_errors = self.server_errors + 1 if error.server_error else 0
        if self.server_errors >= self.server_error_retries:
            raise GaveUp(
                f"the registry answered {error} to {what} {self.server_errors} times in a row; "
                "sending it again will not change that"
            )
        failing = self.clock() - self.failing_since
        if failing >= self.give_up_after:
            raise GaveUp(
                f"the registry could not take {what} for {failing / 60:,.0f} minutes "
                f"({self.tries} tries, the last: {error})"
            )
        delay = self.delay * (0.5 + random.random())  # noqa: S311  # nosec B311
        stop.wait(min(max(delay, error.retry_after), self.give_up_after - failing))
        self.delay = min(self.delay * 2, BACKOFF_MAX_SECONDS)

    def reset(self) -> None:
        self.delay = BACKOFF_FIRST_SECONDS
        self.tries = 0
        self.server_errors = 0
        self.failing_since = None


def say(message: str) -> None:
    sys.stderr.write(f"[iibench-witness] {message}\n")
    sys.stderr.flush()


# -- Batches ---------------------------------------------------------------------------------


class Outbox:
    """Numbered batches not yet acknowledged, oldest first: in memory up to a bound, then as
    files in the spool directory. A batch never changes once numbered, so a resend is a replay
    the registry recognises."""

    def __init__(self, spool: str, memory_bound: int = MEMORY_BOUND_BYTES):
        self.spool = spool
        self.memory_bound = memory_bound
        self.queue = collections.deque()  # (seq, batch dict or spool file path, size)
        self.memory_bytes = 0
        self.next_seq = 0
        self.lock = threading.Lock()

    def add(self, lines: list, machine: dict, unterminated: bool = False) -> None:
        with self.lock:
            batch = {"seq": self.next_seq, "lines": lines, "machine": machine}
            if unterminated:
                batch["unterminated"] = True
            size = sum(len(line) for line in lines) + 200
            if self.memory_bytes + size > self.memory_bound:
                path = os.path.join(self.spool, f"batch-{self.next_seq:09d}.json")
                with open(path, "w", encoding="utf-8") as handle:
                    json.dump(batch, handle)
                self.queue.append((self.next_seq, path, 0))
            else:
                self.queue.append((self.next_seq, batch, size))
                self.memory_bytes += size
            self.next_seq += 1

    def oldest(self) -> dict | None:
        with self.lock:
            if not self.queue:
                return None
            _, held, _ = self.queue[0]
        if isinstance(held, str):
            with open(held, encoding="utf-8") as handle:
                return json.load(handle)
        return held

    def acknowledged(self, below: int) -> None:
        """Drop every batch numbered below `below`: the registry holds them."""
        with self.lock:
            while self.queue and self.queue[0][0] < below:
                _, held, size = self.queue.popleft()
                if isinstance(held, str):
                    os.unlink(held)
                self.memory_bytes -= size

    def __len__(self) -> int:
        with self.lock:
            return len(self.queue)

    @property
    def on_disk(self) -> int:
        with self.lock:
            return sum(1 for _, held, _ in self.queue if isinstance(held, str))


class Stream:
    """Takes the command's lines, numbers them into batches every interval and sends them."""

    def __init__(
        self,
        registry: Registry,
        run: dict,
        outbox: Outbox,
        counters,
        interval: float,
        give_up_after: float = GIVE_UP_AFTER_SECONDS,
    ):
        self.give_up_after = give_up_after
        self.registry = registry
        self.run = run
        self.outbox = outbox
        self.counters = counters
        self.interval = interval
        self.pending = []
        self.pending_bytes = 0
        # The output's last line had no newline: the registry must not add one.
        self.unterminated = False
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.failed = None  # a refusal or a GaveUp that ends streaming (the command keeps running)
        self.reachable = True

    def line(self, text: str, terminated: bool = True) -> None:
        with self.lock:
            self.pending.append(text)
            self.unterminated = not terminated
            self.pending_bytes += len(text.encode()) + 8
            if self.pending_bytes >= BATCH_MAX_BYTES:
                self._cut()

    def _cut(self, machine: dict | None = None) -> None:
        lines, self.pending, self.pending_bytes = self.pending, [], 0
        self.outbox.add(lines, machine or {}, self.unterminated and bool(lines))
        self.unterminated = False

    def tick(self) -> None:
        """Close the interval: the lines so far and the machine's counters become a batch."""
        machine = self.counters.interval() if self.counters else {}
        with self.lock:
            self._cut(machine)

    def send_all(self) -> bool:
        """Send every batch in the outbox; False if asked to stop first, refused or given up."""
        backoff = Backoff(self.give_up_after)
        path = f"/api/live/{self.run['id']}/batches/"
        while self.failed is None:
            batch = self.outbox.oldest()
            if batch is None:
                return True
            try:
                answer = self.registry.post(path, batch)
            except Unreachable as error:
                if self.reachable:
                    say(f"registry unreachable ({error}); buffering and retrying")
                self.reachable = False
                try:
                    backoff.wait(self.stop, error, f"batch {batch['seq']}")
                except GaveUp as gave_up:
                    self.failed = gave_up
                    say(f"gave up: {gave_up}")
                    say("streaming stopped; the benchmark goes on and its local copy is kept")
                    return False
                if self.stop.is_set():
                    return False
                continue
            except Refused as refusal:
                expected = refusal.body.get("expected_seq")
                if refusal.status == 409 and isinstance(expected, int) and expected > batch["seq"]:
                    self.outbox.acknowledged(expected)  # it already holds these
                    continue
                self.failed = refusal
                say(f"the registry refused batch {batch['seq']} (HTTP {refusal.status}): {refusal}")
                say("streaming stopped; the benchmark goes on and its local copy is kept")
                return False
            if not self.reachable:
                say(f"registry reachable again; {len(self.outbox)} batches to send")
            self.reachable = True
            backoff.reset()
            self.outbox.acknowledged(answer.get("next_seq", batch["seq"] + 1))
        return False

    def run_forever(self) -> None:
        """The sender thread: a batch every interval until asked to stop."""
        next_tick = time.monotonic() + self.interval
        while not self.stop.is_set():
            self.stop.wait(max(next_tick - time.monotonic(), 0))
            if self.stop.is_set():
                break
            next_tick = time.monotonic() + self.interval
            if self.failed is None:
                self.tick()
                self.send_all()


# -- The command -----------------------------------------------------------------------------


def pump_output(child: subprocess.Popen, local_copy, stream: Stream) -> None:
    """Copy the command's output to the terminal and the local copy, line by line, and hand
    each line to the stream."""
    terminal = getattr(sys.stdout, "buffer", sys.stdout)
    for raw in iter(child.stdout.readline, b""):
        terminal.write(raw)
        terminal.flush()
        local_copy.write(raw)
        local_copy.flush()
        terminated = raw.endswith(b"\n")
        stream.line(
            raw[:-1].decode("utf-8", "replace") if terminated else raw.decode("utf-8", "replace"),
            terminated,
        )


def stop_command(child: subprocess.Popen) -> None:
    for sig, wait in ((signal.SIGINT, STOP_GRACE_SECONDS), (signal.SIGTERM, 5.0)):
        if child.poll() is not None:
            return
        try:
            os.killpg(child.pid, sig)
        except ProcessLookupError:
            return
        try:
            child.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            pass
    if child.poll() is None:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()


def exit_status_of(returncode: int) -> int:
    return 128 - returncode if returncode < 0 else returncode


def open_run(registry: Registry, declaration: dict, machine: dict, command: list, args) -> dict:
    body = {
        **declaration,
        "run_key": uuid.uuid4().hex,
        "contest": args.contest,
        "machine": machine,
        "command": " ".join(command)[:1000],
    }
    backoff = Backoff(args.open_timeout)
    never = threading.Event()
    while True:
        try:
            return registry.post("/api/live/", body)
        except Unreachable as error:
            say(f"registry unreachable ({error}); retrying")
            backoff.wait(never, error, "the opening of the run")


def parse_arguments(argv: list) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="iibench-witness",
        description="Run an iiBench command and stream its output to the iiBench registry.",
        usage="%(prog)s --registry URL --token T --contest SLUG [options] -- command ...",
    )
    parser.add_argument("--registry", required=True, help="the registry's URL")
    parser.add_argument("--token", required=True, help="a witness token for the contest")
    parser.add_argument("--contest", required=True, help="the contest's slug")
    parser.add_argument("--declare", help="a JSON file of the declaration (the API's field names)")
    parser.add_argument("--datadir", help="the database's data directory (its drive is reported)")
    parser.add_argument("--db", help="the database URL (its version and variables are reported)")
    parser.add_argument("--interval", type=float, default=5.0, help="seconds between batches")
    parser.add_argument(
        "--log", help="the local copy of the output (default: iibench-witness-<time>.log)"
    )
    parser.add_argument("--spool", help="where batches wait on disk while the registry is away")
    parser.add_argument("--open-timeout", type=float, default=300.0, help=argparse.SUPPRESS)
    parser.add_argument(
        "--give-up-after",
        type=float,
        default=GIVE_UP_AFTER_SECONDS,
        help="seconds to keep retrying a registry that does not answer (default: a day)",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {VERSION}")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.command[:1] == ["--"]:
        args.command = args.command[1:]
    if not args.command:
        parser.error("name the benchmark command after --")
    return args


def load_declaration(path: str | None) -> dict:
    if not path:
        return {}
    with open(path, encoding="utf-8") as handle:
        declaration = json.load(handle)
    if not isinstance(declaration, dict):
        raise SystemExit(f"iibench-witness: {path} must hold one JSON object of fields")
    return declaration


def main(argv: list | None = None) -> int:
    args = parse_arguments(sys.argv[1:] if argv is None else argv)
    registry = Registry(args.registry, args.token)
    machine = machine_facts(args.datadir, args.db)
    try:
        run = open_run(registry, load_declaration(args.declare), machine, args.command, args)
    except Refused as refusal:
        say(f"the registry refused the run (HTTP {refusal.status}): {json.dumps(refusal.body)}")
        return 2
    except GaveUp as gave_up:
        say(f"gave up opening the run: {gave_up}")
        return 2
    say(f"streaming to {run['url']}")
    disk = (machine.get("datadir") or {}).get("device")
    spool = args.spool or tempfile.mkdtemp(prefix="iibench-witness-")
    os.makedirs(spool, exist_ok=True)
    stream = Stream(
        registry, run, Outbox(spool), IntervalCounters(disk), args.interval, args.give_up_after
    )
    local_path = args.log or time.strftime("iibench-witness-%Y%m%d-%H%M%S.log")
    interrupted = []

    def on_interrupt(signum, frame):
        interrupted.append(signum)
        if len(interrupted) > 2:  # asked three times: stop waiting for the registry too
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_interrupt)
    signal.signal(signal.SIGTERM, on_interrupt)
    with open(local_path, "wb") as local_copy:
        # Its own session: Ctrl-C reaches the witness, which stops the command itself.
        child = subprocess.Popen(  # noqa: S603 - the entrant's own command  # nosec B603
            args.command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
        )
        pump = threading.Thread(target=pump_output, args=(child, local_copy, stream), daemon=True)
        pump.start()
        sender = threading.Thread(target=stream.run_forever, daemon=True)
        sender.start()
        while child.poll() is None:
            if interrupted:
                say("interrupted: stopping the benchmark and sealing the stream")
                stop_command(child)
                break
            time.sleep(0.2)
        child.wait()
        # A process the command left behind may hold its output open: wait a while, not forever.
        pump.join(STOP_GRACE_SECONDS)
        if pump.is_alive():
            say("the command exited but something it started still holds its output; sealing")
    signal.signal(signal.SIGINT, previous)
    stream.stop.set()
    sender.join()
    status = exit_status_of(child.returncode)
    if interrupted and status == 0:
        # A benchmark that stops cleanly on SIGINT (ours prints a "stopped" summary) still did
        # not finish by itself: seal it as interrupted, the shell's 128 + SIGINT.
        status = 128 + signal.SIGINT
    stream.tick()
    say(f"the benchmark exited with status {status}; sending {len(stream.outbox)} batches")
    if stream.failed is not None:
        say(f"not sealed: streaming stopped ({stream.failed}). The output is in {local_path}")
        return status or 1
    stream.stop.clear()
    if not stream.send_all():
        say(f"not sealed: batches could not be sent. The output is in {local_path}")
        return status or 1
    backoff = Backoff(args.give_up_after)
    return seal(registry, run, stream.outbox.next_seq, status, local_path, interrupted, backoff)


def seal(
    registry: Registry,
    run: dict,
    batches: int,
    status: int,
    local_path: str,
    interrupted,
    backoff: Backoff,
) -> int:
    never = threading.Event()
    while True:
        try:
            sealed = registry.post(
                f"/api/live/{run['id']}/seal/", {"exit_status": status, "batches": batches}
            )
            break
        except Unreachable as error:
            say(f"registry unreachable while sealing ({error}); retrying")
            try:
                backoff.wait(never, error, "the seal")
            except GaveUp as gave_up:
                say(f"gave up sealing: {gave_up}. The output is in {local_path}")
                return status or 1
        except Refused as refusal:
            say(f"the registry refused the seal (HTTP {refusal.status}): {refusal}")
            return status or 1
    entry = sealed.get("entry") or {}
    trust = sealed.get("trust") or "no entry"
    say(f"sealed: {trust}; entry {entry.get('url') or sealed.get('seal_message')}")
    for verdict in sealed.get("seal_verdicts", []):
        say(f"  {verdict['status']}: {verdict['message']}")
    if interrupted:
        say("the run was interrupted (Ctrl-C): the benchmark and the stream were stopped together")
    say(f"local copy: {local_path}")
    return status


if __name__ == "__main__":
    sys.exit(main())
