"""A private database server a crash-recovery rerun owns: its own data directory, port and
socket under a temporary directory, started as the worker's child (so it dies with the worker,
PR_SET_PDEATHSIG), killed with SIGKILL for the crash, restarted on the same data, and always
stopped and removed at the end.

The servers run in the foreground as our children, not through mysqld_safe or pg_ctl: those
daemonize the server (it would outlive a killed worker) and mysqld_safe restarts a crashed
server by itself, which is the one thing a crash test must not have."""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess  # servers run with argument lists, never a shell  # nosec B404
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from runner import process

DIR_PREFIX = "iibench-recovery-"
DATABASE = "iibench"
# The benchmark's table: a cheap query on it says the table answers, a count what survived.
TABLE_ANSWERS = "SELECT 1 FROM mypurchases LIMIT 1"
TABLE_ROWS = "SELECT COUNT(*) FROM mypurchases"
# A probe gives up quickly so the caller can look at the clock and the cancel flag.
PROBE_TIMEOUT_SECONDS = 2
# mariadb-install-db and initdb take about a second; past this something is wrong.
SETUP_TIMEOUT_SECONDS = 300


class ServerError(Exception):
    """The private server could not be set up or did not come back; the message says why,
    with the end of its own log."""


@dataclass(frozen=True)
class ServerSettings:
    kind: str  # "mariadb" | "postgresql"
    base_dir: str  # where the temporary directories go (short: socket paths have a limit)
    mariadbd: str = "/usr/sbin/mariadbd"
    mariadb_install_db: str = "/usr/bin/mariadb-install-db"
    postgresql_bin_dir: str = "/usr/lib/postgresql/15/bin"
    # PostgreSQL refuses to run as root: a root worker runs it (and initdb) as this user.
    postgresql_os_user: str = "postgres"


def free_port() -> int:
    """A port nobody listens on now. Another process could take it before the server binds it:
    the server then fails to start and says so."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def descendants(pid: int) -> list[int]:
    """Every process below `pid`, from /proc: PostgreSQL's children leave the postmaster's
    process group (they call setsid), so killing the group would not reach them."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        # The command name is in parentheses and may hold spaces: the ppid follows the last ')'.
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found, pending = [], [pid]
    while pending:
        for child in children.get(pending.pop(), []):
            found.append(child)
            pending.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie is dead for our purpose: it holds no files and no memory.
    with contextlib.suppress(OSError):
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]) != "Z"
    return False


def remove_leftovers(base_dir: str) -> list[str]:
    """Directories of private servers whose worker process is gone (a worker killed before it
    could clean up; its servers died with it). Returns what was removed."""
    removed = []
    for folder in Path(base_dir).glob(f"{DIR_PREFIX}*"):
        try:
            owner = json.loads((folder / "owner.json").read_text())
        except (OSError, ValueError):
            continue  # not ours, or being created right now
        if owner.get("host") == socket.gethostname() and not alive(int(owner.get("pid", 0))):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(str(folder))
    return removed


class PrivateServer:
    """Use as a context manager: whatever happens inside, the server is stopped and its
    directory removed on the way out."""

    def __init__(self, config: ServerSettings, label: str):
        self.config = config
        self.label = label
        self.root: Path | None = None
        self.port = 0
        self.server: subprocess.Popen | None = None
        self.log_path: Path | None = None

    # -- life cycle -------------------------------------------------------------------------

    def __enter__(self) -> PrivateServer:
        Path(self.config.base_dir).mkdir(parents=True, exist_ok=True)
        self.root = Path(
            tempfile.mkdtemp(prefix=f"{DIR_PREFIX}{self.label}-", dir=self.config.base_dir)
        )
        owner = {"pid": os.getpid(), "host": socket.gethostname(), "label": self.label}
        (self.root / "owner.json").write_text(json.dumps(owner))
        if self._os_user():
            entry = pwd.getpwnam(self._os_user())
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        self.port = free_port()
        self.log_path = self.root / "server.log"
        return self

    def __exit__(self, *exc_info) -> None:
        self.remove()

    def remove(self) -> None:
        self.stop()
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None

    def _os_user(self) -> str | None:
        if self.config.kind == "postgresql" and os.geteuid() == 0:
            return self.config.postgresql_os_user
        return None

    @property
    def data_dir(self) -> Path:
        if self.root is None:
            raise ServerError("The private server's directory is used outside its `with`.")
        return self.root / "data"

    @property
    def url(self) -> str:
        """The benchmark's --db URL."""
        if self.config.kind == "mariadb":
            return f"mysql://root@127.0.0.1:{self.port}/{DATABASE}"
        return f"postgresql://{self._superuser()}@127.0.0.1:{self.port}/{DATABASE}"

    def _superuser(self) -> str:
        return self._os_user() or pwd.getpwuid(os.geteuid()).pw_name

    # -- commands -----------------------------------------------------------------------------

    def initialize(self) -> None:
        """A fresh data directory (mariadb-install-db or initdb)."""
        if self.config.kind == "mariadb":
            arguments = [
                self.config.mariadb_install_db,
                "--no-defaults",
                f"--datadir={self.data_dir}",
                "--auth-root-authentication-method=normal",  # root@127.0.0.1 without password
                "--skip-test-db",
                *self._mariadb_user(),
            ]
        else:
            arguments = [
                str(Path(self.config.postgresql_bin_dir) / "initdb"),
                "-D",
                str(self.data_dir),
                "-U",
                self._superuser(),
                "--auth=trust",  # it listens on 127.0.0.1 and its own socket only
                "-E",
                "UTF8",
                "--no-sync",  # initdb's files only; the server itself keeps fsync on
            ]
        self._run_to_end(arguments, "initialize")

    def _mariadb_user(self) -> list[str]:
        # mariadbd refuses to run as root unless told to; as another user it needs nothing.
        return ["--user=root"] if os.geteuid() == 0 else []

    def _run_to_end(self, arguments: list[str], what: str) -> None:
        try:
            done = subprocess.run(  # noqa: S603 - fixed binaries from settings  # nosec B603
                arguments,
                cwd=self.root,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=SETUP_TIMEOUT_SECONDS,
                user=self._os_user(),
                env=self._environment(),
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise ServerError(
                f"Could not {what} the private {self.config.kind} server: {error}"
            ) from None
        if done.returncode != 0:
            tail = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
            hint = (
                f" (the {self._os_user()} user must be able to reach {self.config.base_dir})"
                if self._os_user() and "Permission denied" in done.stderr
                else ""
            )
            raise ServerError(
                f"Could not {what} the private {self.config.kind} server (exit "
                f"{done.returncode}): {' | '.join(tail[-3:]) or 'no message'}{hint}"
            )

    def _environment(self) -> dict[str, str]:
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}

    def start(self) -> None:
        """Start the server process (the caller waits until it answers)."""
        if self.config.kind == "mariadb":
            arguments = [
                self.config.mariadbd,
                "--no-defaults",
                f"--datadir={self.data_dir}",
                f"--socket={self.root}/mysqld.sock",
                f"--port={self.port}",
                "--bind-address=127.0.0.1",
                f"--pid-file={self.root}/mysqld.pid",
                f"--log-error={self.log_path}",
                *self._mariadb_user(),
            ]
        else:
            arguments = [
                str(Path(self.config.postgresql_bin_dir) / "postgres"),
                "-D",
                str(self.data_dir),
                "-p",
                str(self.port),
                "-k",
                str(self.root),
                "-c",
                "listen_addresses=127.0.0.1",
            ]
        # Appended to: the restart's log follows the first start's, as the server would write it.
        with open(self.log_path, "a") as log:
            self.server = subprocess.Popen(  # noqa: S603 - fixed binaries from settings  # nosec B603
                arguments,
                cwd=self.root,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                user=self._os_user(),
                # Runs after the switch to the server's user: a credentials change clears
                # the parent-death signal, so it must be set last.
                preexec_fn=process.die_with_parent,
                env=self._environment(),
            )

    @property
    def pid(self) -> int | None:
        return self.server.pid if self.server else None

    def exit_code(self) -> int | None:
        return self.server.poll() if self.server else None

    def all_pids(self) -> list[int]:
        if self.server is None or self.server.poll() is not None:
            return []
        return [self.server.pid, *descendants(self.server.pid)]

    def crash(self) -> list[int]:
        """SIGKILL the server and every process it started, at once, as a power cut would;
        returns once they are all gone. Returns the pids killed."""
        victims = self.all_pids()
        for pid in victims:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if self.server is not None:
            self.server.wait()
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in victims) and time.monotonic() < deadline:
            time.sleep(0.02)
        return victims

    def stop(self, grace_seconds: float = 10) -> None:
        """A clean shutdown (SIGTERM), then SIGKILL for whatever is left after the grace."""
        if self.server is None:
            return
        victims = self.all_pids()
        if self.server.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.server.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.server.wait(timeout=grace_seconds)
        for pid in victims:
            if alive(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        if self.server.poll() is None:
            self.server.wait()
        self.server = None

    # -- probes -------------------------------------------------------------------------------

    def answers(self, table: bool = False) -> bool:
        """One try: the server accepts a connection (and the benchmark's table answers)."""
        try:
            with contextlib.closing(self._connect(DATABASE if table else None)) as connection:
                if table:
                    self._fetch(connection, TABLE_ANSWERS)
        except Exception:  # any driver error (refused, starting up, no table yet) means "not yet"
            return False
        return True

    def count_rows(self) -> int:
        try:
            with contextlib.closing(self._connect(DATABASE)) as connection:
                return int(self._fetch(connection, TABLE_ROWS)[0])
        except Exception as error:  # the driver's own errors; the message says what failed
            raise ServerError(f"The recovered table could not be counted: {error}") from None

    def create_database(self) -> None:
        try:
            with contextlib.closing(self._connect(None)) as connection:
                self._fetch(connection, f"CREATE DATABASE {DATABASE}", rows=False)
        except Exception as error:  # the driver's own errors; the message says what failed
            raise ServerError(f"Could not create the database {DATABASE}: {error}") from None

    def _connect(self, database: str | None):
        if self.config.kind == "mariadb":
            import pymysql

            return pymysql.connect(
                host="127.0.0.1",
                port=self.port,
                user="root",
                database=database,
                connect_timeout=PROBE_TIMEOUT_SECONDS,
                read_timeout=PROBE_TIMEOUT_SECONDS * 5,
                autocommit=True,
            )
        import psycopg

        return psycopg.connect(
            host="127.0.0.1",
            port=self.port,
            user=self._superuser(),
            dbname=database or "postgres",
            connect_timeout=PROBE_TIMEOUT_SECONDS,
            autocommit=True,
        )

    @staticmethod
    def _fetch(connection, sql: str, rows: bool = True):
        with connection.cursor() as cursor:
            cursor.execute(sql)
            return cursor.fetchone() if rows else None

    def log_text(self, limit: int = 20_000) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        text = self.log_path.read_text(errors="replace")
        return text[-limit:]
